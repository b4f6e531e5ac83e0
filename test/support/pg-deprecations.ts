// vitest's setup file for every test file: pg 8 warns of what pg 9 will refuse (among them a statement sent
// on a client still running one, which pg 8 queues), once per process, as a DeprecationWarning that would
// otherwise scroll by in the log. A test file whose code makes pg warn fails, naming where it was called.
import { afterAll } from 'vitest';

const warnings: Error[] = [];
const record = (warning: Error) => {
  if (warning.name === 'DeprecationWarning' && warning.message.includes('pg@9')) warnings.push(warning);
};
process.on('warning', record);

afterAll(() => {
  process.off('warning', record);
  if (warnings.length > 0)
    throw new Error(`pg warned of what pg 9 refuses:\n${warnings.map((w) => w.stack).join('\n')}`);
});
