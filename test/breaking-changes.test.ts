// The breaking-change guard (test/breaking-changes.ts, run by CI as `npm run breaking`): today's documents
// against the last release's pass; a removed field, a removed operation and a parameter made required are
// each named until CHANGELOG.md lists them under the next version; additions pass. Each change is judged
// where it is used, under its operation: an answer given a limit passes, an answer losing a property, changing
// a type or gaining an enum value is named, and so is a request given a limit, inside a shared schema or not.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { buildSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { type Documents, documentsAt, inlined, unlistedBreakingChanges } from './breaking-changes.ts';

const release = documentsAt('release/');
const current = documentsAt('');
const changelog = readFileSync(new URL('../CHANGELOG.md', import.meta.url), 'utf8');
const releaseVersion = (release.openapi.info as { version: string }).version;
/** Where the last release's section of `text` starts: what is above it is the next version's. */
const releaseAt = (text: string) =>
  text.search(new RegExp(`^## ${releaseVersion.replaceAll('.', '\\.')}\\b`, 'm'));
/** CHANGELOG.md without the next version's "### Breaking" list, which may name the operations changed below. */
const unlisted =
  changelog.slice(0, releaseAt(changelog)).replace(/^### Breaking\n[\s\S]*?(?=^### |^## |(?![\s\S]))/m, '') +
  changelog.slice(releaseAt(changelog));

/** Today's documents with a field gone from the graph and two REST changes a client would feel. */
function broken(): Documents {
  const schema = mapSchema(buildSchema(current.schema), {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) =>
      typeName === 'SpecialEvent' && fieldName === 'location' ? null : field,
  });
  const openapi = structuredClone(current.openapi) as {
    paths: Record<string, Record<string, unknown>>;
    components: { parameters: Record<string, { required?: boolean }> };
  };
  delete openapi.paths['/museum-hours']!.get;
  openapi.components.parameters.PaginationPage!.required = true;
  return { schema: printSchema(schema), openapi };
}

type Schema = {
  properties: Record<string, { type?: string; enum?: string[]; maxLength?: number; format?: string }>;
  required?: string[];
};
type OpenApi = {
  paths: Record<string, Record<string, { parameters?: { name: string; schema: { maxLength?: number } }[] }>>;
  components: { schemas: Record<string, Schema> };
};
/** A copy of today's OpenAPI document, changed by `change`, with today's schema. */
function changed(change: (openapi: OpenApi) => void): Documents {
  const openapi = structuredClone(current.openapi) as OpenApi;
  change(openapi);
  return { schema: current.schema, openapi: openapi as unknown as Documents['openapi'] };
}
/** The names of the REST operations the guard finds broken from `before` to `after`, sorted, once each. */
const restNames = async (before: Documents, after: Documents) =>
  [...new Set((await unlistedBreakingChanges(before, after, unlisted)).map((change) => change.name))].sort();

/** CHANGELOG.md with a "### Breaking" list of `names` in a section of the next version, above the release's. */
const changelogListing = (names: string[]) =>
  `${unlisted.slice(0, releaseAt(unlisted))}## Unreleased\n\n### Breaking\n${names.map((n) => `- \`${n}\`\n`).join('')}\n${unlisted.slice(releaseAt(unlisted))}`;

describe('the breaking-change guard', () => {
  it("finds none between the last release's documents and today's (CHANGELOG.md as it is)", async () => {
    expect(await unlistedBreakingChanges(release, current, changelog)).toEqual([]);
  });

  it('names a removed field, a removed operation and a parameter made required', async () => {
    const found = await unlistedBreakingChanges(current, broken(), unlisted);
    const names = [...new Set(found.map((change) => `${change.api} ${change.name}`))].sort();
    expect(names).toEqual([
      'GraphQL SpecialEvent.location',
      'REST GET /museum-hours',
      'REST GET /privacy/requests',
      'REST GET /special-events',
      'REST GET /tickets',
      'REST GET /webhook-subscriptions',
      'REST GET /webhook-subscriptions/{subscriptionId}/deliveries',
    ]);
    expect(found.find((change) => change.name === 'SpecialEvent.location')?.message).toMatch(/removed/i);
  });

  it('passes them once CHANGELOG.md lists each under the next version, not under a released one', async () => {
    const all = (await unlistedBreakingChanges(current, broken(), unlisted)).map((change) => change.name);
    const listed = changelogListing([...new Set(all)]);
    expect(await unlistedBreakingChanges(current, broken(), listed)).toEqual([]);
    // Listed only in part: the rest is still named.
    const partly = changelogListing(['SpecialEvent.location']);
    expect((await unlistedBreakingChanges(current, broken(), partly)).map((c) => c.name)).not.toContain(
      'SpecialEvent.location',
    );
    expect((await unlistedBreakingChanges(current, broken(), partly)).length).toBeGreaterThan(0);
    // Under the release's own heading, a list says what that release broke, not what comes next.
    const underRelease = unlisted.replace(
      new RegExp(`^## ${releaseVersion.replaceAll('.', '\\.')}.*$`, 'm'),
      (heading) => `${heading}\n\n### Breaking\n- \`SpecialEvent.location\`\n`,
    );
    expect((await unlistedBreakingChanges(current, broken(), underRelease)).map((c) => c.name)).toContain(
      'SpecialEvent.location',
    );
  });

  it('lets additions through: a new field, a new optional parameter', async () => {
    const withField = current.schema.replace(
      /^type SpecialEvent(.*)\{$/m,
      (line) => `${line}\n  """A note added later."""\n  note: String`,
    );
    expect(withField).toContain('note: String');
    const openapi = structuredClone(current.openapi) as {
      paths: Record<string, Record<string, { parameters?: unknown[] }>>;
    };
    openapi.paths['/museum-hours']!.get!.parameters!.push({
      name: 'lang',
      in: 'query',
      required: false,
      schema: { type: 'string', maxLength: 8 },
    });
    expect(await unlistedBreakingChanges(current, { schema: withField, openapi }, changelog)).toEqual([]);
  });

  it('lets an answer gain a limit, an enum or a format it did not declare: it says what the answer held', async () => {
    // Problem (every error answer, through components/responses and components/schemas) as the release had it.
    const before = changed(({ components }) => {
      const { properties } = components.schemas.Problem!;
      delete properties.detail!.maxLength;
      delete properties.type!.enum;
      delete properties.status!.format;
    });
    expect(before.openapi).not.toEqual(current.openapi);
    expect(await unlistedBreakingChanges(before, current, unlisted)).toEqual([]);
  });

  it('names an answer losing a property, changing its type, or gaining a value in an enum it had', async () => {
    const after = changed(({ components: { schemas } }) => {
      delete schemas.TicketCheckIn!.properties.eventName; // optional: api-smart-diff alone calls it not breaking
      schemas.Ticket!.properties.price!.type = 'string';
      schemas.StripeEventReceipt!.properties.outcome!.enum!.push('disputed');
    });
    expect(await restNames(current, after)).toEqual([
      'GET /tickets/{ticketId}',
      'POST /check-ins',
      'POST /payments/stripe',
    ]);
  });

  it('names a request parameter given a maxLength it did not have', async () => {
    const before = changed(({ paths }) => {
      delete paths['/privacy/requests']!.get!.parameters!.find((p) => p.name === 'email')!.schema.maxLength;
    });
    expect(await restNames(before, current)).toEqual(['GET /privacy/requests']);
  });

  it('names a change inside a component schema under the operation whose request uses it, not `schemas`', async () => {
    // CheckIn is only POST /check-ins' request body: a new required field refuses what was taken.
    const after = changed(({ components: { schemas } }) => {
      schemas.CheckIn!.properties.gate = { type: 'string', maxLength: 8 };
      schemas.CheckIn!.required!.push('gate');
    });
    expect(await restNames(current, after)).toEqual(['POST /check-ins']);
  });

  it('inlines local $refs for the comparison: JSON pointers unescaped, a recursive schema left a $ref', () => {
    const document = {
      paths: {
        '/a/{b~c}': { get: { responses: { '200': { $ref: '#/components/responses/Node' } } } },
        '/d': { get: { responses: { '200': { $ref: '#/paths/~1a~1%7Bb~0c%7D/get/responses/200' } } } },
      },
      components: {
        responses: {
          Node: {
            description: 'A node',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
          },
        },
        schemas: { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } },
        securitySchemes: { basic: { type: 'http', scheme: 'basic' } },
      },
    };
    const node = { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } };
    const answer = { description: 'A node', content: { 'application/json': { schema: node } } };
    expect(inlined(document)).toEqual({
      paths: {
        '/a/{b~c}': { get: { responses: { '200': answer } } },
        '/d': { get: { responses: { '200': answer } } },
      },
      components: { securitySchemes: document.components.securitySchemes },
    });
  });

  it('is the CI step: `npm run breaking` passes on the committed documents', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['test/breaking-changes.ts'], {
      cwd: new URL('..', import.meta.url).pathname,
    });
    expect(stdout).toMatch(/No breaking change since the last release/);
  });
});
