// The one setup of a test file (or of a describe block): its own museum, opened before the first test and
// closed after the last.
import { afterAll, beforeAll } from 'vitest';
import type { AppOptions } from '../../src/app.ts';
import type { Clock } from '../../src/common/dates.ts';
import type { Logger } from '../../src/logger.ts';
import { startMuseum, type TestMuseum } from './museum.ts';

/**
 * Registers the hooks and returns a stand-in that forwards to the museum once `beforeAll` has opened it,
 * so that tests and later hooks use it as the museum itself. Hooks run in reverse on the way out, so a
 * server a later `beforeAll` starts on it is stopped before the museum closes.
 */
export function useMuseum(
  env: Record<string, string> = {},
  options: { logger?: Logger; clock?: Clock; plugins?: AppOptions['plugins'] } = {},
): TestMuseum {
  let museum: TestMuseum | undefined;
  beforeAll(async () => {
    museum = await startMuseum(env, options);
  });
  afterAll(() => museum?.close());
  return new Proxy({} as TestMuseum, {
    get(_target, key) {
      if (!museum) throw new Error(`museum.${String(key)} before beforeAll opened it`);
      const value = Reflect.get(museum, key, museum);
      return typeof value === 'function' ? value.bind(museum) : value;
    },
  });
}
