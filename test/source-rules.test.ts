// What the source must not hold again (issue 56): a second lane into yoga's HTTP handler or its internals, a
// raw SQL string through the ORM, a method of pg's objects replaced.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');
const sources = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((path) => /\.(ts|mjs)$/.test(path) && !path.startsWith(join('db', 'migrations')))
  .map((path) => ({ path, text: readFileSync(join(SRC, path), 'utf8') }));

describe('the source', () => {
  it.each([
    ["yoga's protected plugins", "['plugins']"],
    ["the fetch adapter's undocumented option", '__useCustomAbortCtrl'],
    ['a second HTTP adapter around yoga', 'createServerAdapter'],
    ['a raw SQL string through the ORM', 'em.execute('],
    ["a method of pg's objects replaced", '.query ='],
  ])('has no %s (%s)', (_, needle) => {
    expect(sources.filter(({ text }) => text.includes(needle)).map(({ path }) => path)).toEqual([]);
  });

  it('is read whole (the check above sees every file)', () => {
    expect(sources.map(({ path }) => path)).toEqual(
      expect.arrayContaining([
        join('graphql', 'engine.ts'),
        join('http', 'graphql-endpoint.ts'),
        join('db', 'sql.ts'),
      ]),
    );
  });
});
