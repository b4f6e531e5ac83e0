// The project's documentation as the tests read it: README.md and the pages of docs/, their `## ` sections
// and the code blocks in them, so that examples run as pasted and tables are checked against the code.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every page of the documentation, as paths from the repository's root: the README, then docs/*.md. */
export const DOC_PAGES: readonly string[] = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** A page's text; `page` is a path from the repository's root (`README.md`, `docs/api.md`). */
export function readPage(page: string): string {
  return readFileSync(join(root, page), 'utf8');
}

/** The `## <title>` sections of a page, in order (null: the text before the first one). */
export function sectionTitles(page: string): (string | null)[] {
  return [null, ...[...readPage(page).matchAll(/^## (.+)$/gm)].map((match) => match[1]!)];
}

/** A page's `## <title>` section with its `### ` subsections (null: the text before the first section). */
export function section(page: string, title: string | null): string {
  const text = readPage(page);
  const start = title === null ? 0 : text.search(new RegExp(`^## ${escapeRegExp(title)}$`, 'm'));
  if (start === -1) throw new Error(`${page} has no section "## ${title}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The ```<language> blocks of a page's `## <title>` section (null: before the first section), in order. */
export function codeBlocks(page: string, title: string | null, language: string): string[] {
  return [...section(page, title).matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map(
    (match) => match[1]!,
  );
}

/**
 * The variables of a documented `npm start` (`NAME=value` before it) in `page`'s section `title`, each
 * `postgres://user@host:port/database` moved to where `servers` maps its `host:port`, as `user` (the test
 * server's), on `database`.
 */
export function documentedEnv(
  page: string,
  title: string,
  servers: Record<string, string>,
  target: { user: string; database: string },
): Record<string, string> {
  const [block] = codeBlocks(page, title, 'sh');
  const env: Record<string, string> = {};
  for (const [, name, value] of block!.replaceAll('\\\n', ' ').matchAll(/(?:^|\s)([A-Z_]+)=(\S+)/g)) {
    env[name!] = value!.replace(/\/\/\w+@([\w.]+:\d+)\/\w+/g, (found, server: string) => {
      if (!servers[server]) throw new Error(`no server for ${found}`);
      return `//${target.user}@${servers[server]}/${target.database}`;
    });
  }
  return env;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
