// The README's code examples, for the tests that run them as pasted.
import { readFile } from 'node:fs/promises';

/** The ```<language> blocks of the README's `## <title>` section, in order. */
export async function readmeBlocks(title: string, language: string): Promise<string[]> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf(`\n## ${title}`);
  if (start === -1) throw new Error(`README has no section "${title}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}
