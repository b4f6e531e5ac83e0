// The breaking-change guard (`npm run breaking`, a CI step): compares the printed schema and the OpenAPI
// document with those of the last release (schema/release/) and fails on a breaking change that CHANGELOG.md
// does not name in a "### Breaking" list above that release's heading. GraphQL by @graphql-inspector/core,
// REST by api-smart-diff (OpenAPI 3.1).
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

/** The breaking changes from `release` to `current`, GraphQL's then REST's. */
export async function breakingChanges(release: Documents, current: Documents): Promise<BreakingChange[]> {
  const graphql = (await diff(buildSchema(release.schema), buildSchema(current.schema)))
    .filter((change) => change.criticality.level === CriticalityLevel.Breaking)
    .map((change) => ({ api: 'GraphQL' as const, name: change.path ?? '', message: change.message }));
  const rest = apiCompare(release.openapi, current.openapi)
    .diffs.filter((change) => change.type === 'breaking')
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
