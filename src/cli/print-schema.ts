// `npm run schema:print`: rewrites schema/schema.graphql from the code-first schema.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { printedSchema } from '../graphql/schema.ts';

const target = join(import.meta.dirname, '..', '..', 'schema', 'schema.graphql');
await writeFile(target, printedSchema());
console.log(`wrote ${target}`);
