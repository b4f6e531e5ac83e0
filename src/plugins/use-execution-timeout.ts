import type { Plugin } from 'graphql-yoga';
import { TOOK_TOO_LONG } from '../common/deadline.ts';
import { refusal } from '../graphql/errors.ts';

/**
 * A per-operation execution deadline: an operation still running after `timeoutMs` is answered 503 with
 * Retry-After (its database work finishes or fails on its own, unseen). REST runs through it too.
 */
export function useExecutionTimeout(timeoutMs: number): Plugin {
  const timedOut = () => ({ errors: [refusal('unavailable', TOOK_TOO_LONG, { 'Retry-After': '5' })] });
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<ReturnType<typeof timedOut>>((resolve) => {
          timer = setTimeout(() => resolve(timedOut()), timeoutMs);
        });
        return Promise.race([Promise.resolve(executeFn(args)), deadline]).finally(() =>
          clearTimeout(timer),
        ) as ReturnType<typeof executeFn>;
      });
    },
  };
}
