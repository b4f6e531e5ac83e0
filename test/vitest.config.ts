import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Node resolves `graphql` to its CommonJS build (graphql 16 has no exports map); Vite would pick the
  // .mjs one for our files, and two copies of graphql refuse each other's schema.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    root: new URL('..', import.meta.url).pathname,
    // Each file opens its own database (in memory, or a fresh one on the PostgreSQL server).
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // The leak scan (issue 39): every log line, span and metric of the run is recorded, then searched for
    // e-mail addresses, Authorization values and passwords; a finding fails the run. MUSEUM_TEST_LEAK_SCAN=off
    // turns it off.
    globalSetup: ['test/support/leak-scan.ts'],
    setupFiles: ['test/support/leak-scan-setup.ts', 'test/support/pg-deprecations.ts'],
  },
});
