// `npm run schema:print`: rewrites schema/schema.graphql from the code-first schema.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { printedSchema } from '../graph/schema.ts';
import { runCli, UsageError } from './cli.ts';

const USAGE = `usage: npm run schema:print
Rewrites schema/schema.graphql from the code-first schema (a test fails while it is stale).`;

await runCli('schema:print', USAGE, async (args) => {
  if (args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`);
  const target = join(import.meta.dirname, '..', '..', 'schema', 'schema.graphql');
  await writeFile(target, printedSchema());
  console.log(`wrote ${target}`);
});
