// `npm run openapi:print`: rewrites schema/openapi.json (a test fails while it is stale).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { printedOpenApiDocument } from '../openapi/document.ts';
import { runCli, UsageError } from './cli.ts';

const USAGE = `usage: npm run openapi:print
Rewrites schema/openapi.json, the OpenAPI document /openapi.json serves (a test fails while it is stale).`;

await runCli('openapi:print', USAGE, async (args) => {
  if (args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`);
  const target = join(import.meta.dirname, '..', '..', 'schema', 'openapi.json');
  await writeFile(target, printedOpenApiDocument());
  console.log(`wrote ${target}`);
});
