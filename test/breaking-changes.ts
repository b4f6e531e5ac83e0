// The breaking-change guard (`npm run breaking`, a CI step): compares the printed schema and the OpenAPI
// document with those of the last release (schema/release/) and fails on a breaking change that CHANGELOG.md
// does not name in a "### Breaking" list above that release's heading. GraphQL by @graphql-inspector/core,
// REST by api-smart-diff (OpenAPI 3.1) over both documents with their `$ref`s inlined, so that each change is
// judged where it is used (a request or an answer) and named by its operation; `breaks` amends a few of its
// verdicts on answers.
import { readFileSync } from 'node:fs';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { apiCompare } from 'api-smart-diff';
import { buildSchema } from 'graphql';

export interface Documents {
  schema: string;
  openapi: Record<string, unknown>;
}

/** A breaking change: what it touches, as CHANGELOG.md must name it in backticks, and what it is. */
export interface BreakingChange {
  api: 'GraphQL' | 'REST';
  /** A schema coordinate (`SpecialEvent.location`) or an operation (`GET /special-events`). */
  name: string;
  message: string;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

type Json = unknown;
type JsonObject = Record<string, Json>;

/** The node a local `$ref` (`#/components/schemas/Problem`) points at: a JSON pointer, unescaped (RFC 6901). */
function pointee(document: Json, ref: string): Json {
  return ref
    .slice(2)
    .split('/')
    .map((token) => decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<Json>((node, key) => (node as JsonObject | undefined)?.[key], document);
}

/**
 * `document` with every local `$ref` replaced by what it points at (its siblings, such as a `description`,
 * kept over it), so that a change inside a shared component is seen, and classified, where each operation
 * uses it: in a request or in an answer. A `$ref` met again inside its own expansion (a recursive schema)
 * stays a `$ref`. `components` goes, but for `securitySchemes` (named by `security`, not by `$ref`): what
 * the rest holds is compared where it is used.
 */
export function inlined(document: JsonObject): JsonObject {
  const expand = (node: Json, expanding: ReadonlySet<string>): Json => {
    if (Array.isArray(node)) return node.map((item) => expand(item, expanding));
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...siblings } = node as JsonObject;
    if (typeof $ref === 'string' && $ref.startsWith('#/') && !expanding.has($ref)) {
      const target = pointee(document, $ref);
      if (target !== null && typeof target === 'object' && !Array.isArray(target))
        return expand({ ...target, ...siblings }, new Set([...expanding, $ref]));
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, expand(value, expanding)]));
  };
  const { components, ...rest } = document as { components?: JsonObject };
  const securitySchemes = components?.securitySchemes;
  return {
    ...(expand(rest, new Set()) as JsonObject),
    ...(securitySchemes ? { components: { securitySchemes } } : {}),
  };
}

/** Keywords that bound a value; added to an answer's schema, they describe what it already held. */
const LIMITS = new Set([
  ...['maxLength', 'minLength', 'maxItems', 'minItems', 'minimum', 'maximum'],
  ...['exclusiveMinimum', 'exclusiveMaximum', 'format', 'pattern'],
]);

interface Diff {
  action: string;
  path: (string | number)[];
  type: string;
  before?: Json;
  after?: Json;
}

/**
 * Whether a change api-smart-diff found (between inlined documents) can break a client. Its rules, with
 * each schema now where it is used, are right for requests (a parameter or a body field given a limit, or
 * made required, promises less) and for most of an answer (a status, a media type, a header or a required
 * property removed). In an answer (`paths/<path>/<method>/responses/…`) three of its verdicts are amended:
 * - a limit added (`LIMITS`) only describes what the answer held: not breaking (api-smart-diff agrees);
 * - an `enum` on a schema that had none is reported as each of its values added, which api-smart-diff calls
 *   breaking: it only narrows what was any string, so not breaking; a value added to an `enum` the answer
 *   already had stays breaking (a client's exhaustive switch meets a value it does not know). In a request,
 *   the reverse: a first `enum` narrows what a client may send, breaking (api-smart-diff calls it not);
 * - a property removed, optional or not, and a `type` replaced by one that admits a value it did not (a
 *   string becoming an integer, or nullable) break a reader: api-smart-diff calls them not breaking.
 */
function breaks(change: Diff, release: JsonObject): boolean {
  const { action, path } = change;
  const answer = path[0] === 'paths' && path[3] === 'responses';
  const key = path.at(-1);
  if (action === 'add' && path.at(-2) === 'enum') {
    const schema = path.slice(0, -2).reduce<Json>((node, step) => (node as JsonObject)?.[step], release);
    const firstEnum = (schema as JsonObject | undefined)?.enum === undefined;
    if (firstEnum) return !answer;
    return answer || change.type === 'breaking';
  }
  if (!answer) return change.type === 'breaking';
  if (action === 'add' && LIMITS.has(String(key))) return false;
  if (action === 'remove' && path.at(-2) === 'properties') return true;
  if (action === 'replace' && key === 'type') {
    const types = (value: Json) => [value].flat().map(String);
    const before = types(change.before);
    const admits = (type: string) =>
      before.includes(type) || (type === 'integer' && before.includes('number'));
    return !types(change.after).every(admits);
  }
  return change.type === 'breaking';
}

/** The breaking changes from `release` to `current`, GraphQL's then REST's. */
export async function breakingChanges(release: Documents, current: Documents): Promise<BreakingChange[]> {
  const graphql = (await diff(buildSchema(release.schema), buildSchema(current.schema)))
    .filter((change) => change.criticality.level === CriticalityLevel.Breaking)
    .map((change) => ({ api: 'GraphQL' as const, name: change.path ?? '', message: change.message }));
  // apiCompare normalizes the documents it is given in place (a schema without `enum` gets `enum: []`):
  // `breaks` reads a copy of the release's that it has not touched.
  const before = inlined(release.openapi);
  const rest = apiCompare(structuredClone(before), inlined(current.openapi))
    .diffs.filter((change) => breaks(change as Diff, before))
    .map((change) => {
      // Every REST change is named by its operation: paths / <path> / <method> / ….
      const [root, path, method] = change.path as string[];
      const operation =
        root === 'paths' && path && method && METHODS.has(method) ? `${method.toUpperCase()} ${path}` : path;
      return { api: 'REST' as const, name: operation ?? String(root), message: change.description ?? '' };
    });
  return [...graphql, ...rest];
}

/**
 * What CHANGELOG.md lists as breaking since `releaseVersion`: the backticked names in every "### Breaking"
 * list above that version's "## <version>" heading.
 */
export function listedBreakingChanges(changelog: string, releaseVersion: string): Set<string> {
  const since = changelog.split(new RegExp(`^## ${releaseVersion.replaceAll('.', '\\.')}\\b`, 'm'))[0]!;
  const listed = new Set<string>();
  for (const section of since.split(/^### /m).slice(1)) {
    if (!/^Breaking\b/.test(section)) continue;
    for (const [, name] of section.matchAll(/`([^`]+)`/g)) listed.add(name!);
  }
  return listed;
}

/** The breaking changes CHANGELOG.md does not list under the next version. */
export async function unlistedBreakingChanges(
  release: Documents,
  current: Documents,
  changelog: string,
): Promise<BreakingChange[]> {
  const version = (release.openapi.info as { version: string }).version;
  const listed = listedBreakingChanges(changelog, version);
  return (await breakingChanges(release, current)).filter((change) => !listed.has(change.name));
}

/** The printed schema and OpenAPI document under schema/`path` (today's: '', the release's: 'release/'). */
export const documentsAt = (path: string): Documents => ({
  schema: readFileSync(new URL(`../schema/${path}schema.graphql`, import.meta.url), 'utf8'),
  openapi: JSON.parse(readFileSync(new URL(`../schema/${path}openapi.json`, import.meta.url), 'utf8')),
});

if (import.meta.main) {
  const changelog = readFileSync(new URL('../CHANGELOG.md', import.meta.url), 'utf8');
  const unlisted = await unlistedBreakingChanges(documentsAt('release/'), documentsAt(''), changelog);
  for (const change of unlisted) console.log(`${change.api} \`${change.name}\`: ${change.message}`);
  if (unlisted.length > 0) {
    console.log(
      `\n${unlisted.length} breaking change(s) since the last release (schema/release/) that CHANGELOG.md does not list: name each in backticks under "### Breaking" in its next version, or make the change additive.`,
    );
    process.exit(1);
  }
  console.log('No breaking change since the last release, or each is listed in CHANGELOG.md.');
}
