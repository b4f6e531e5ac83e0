// The breaking-change guard (test/breaking-changes.ts, run by CI as `npm run breaking`): today's documents
// against the last release's pass; a removed field, a removed operation and a parameter made required are
// each named until CHANGELOG.md lists them under the next version; additions pass.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { buildSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { type Documents, documentsAt, unlistedBreakingChanges } from './breaking-changes.ts';

const release = documentsAt('release/');
const current = documentsAt('');
const changelog = readFileSync(new URL('../CHANGELOG.md', import.meta.url), 'utf8');
const releaseVersion = (release.openapi.info as { version: string }).version;
/** CHANGELOG.md without the next version's "### Breaking" list, which may name the operations changed below. */
const unlisted = changelog.replace(/^### Breaking\n[\s\S]*?(?=^### |^## )/m, '');

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

/** CHANGELOG.md with a "### Breaking" list of `names` in its first section (the next version's). */
const changelogListing = (names: string[]) =>
  unlisted.replace(
    /^## .*$/m,
    (heading) => `${heading}\n\n### Breaking\n${names.map((n) => `- \`${n}\`\n`).join('')}`,
  );

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

  it('is the CI step: `npm run breaking` passes on the committed documents', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['test/breaking-changes.ts'], {
      cwd: new URL('..', import.meta.url).pathname,
    });
    expect(stdout).toMatch(/No breaking change since the last release/);
  });
});
