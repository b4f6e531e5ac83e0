/** What a client is told when its operation ran out of time (503, Retry-After). */
export const TOOK_TOO_LONG = 'The request took too long; try again shortly';

/**
 * The work's result, or null when it is still running after `ms` (the work itself goes on, unseen). A result
 * already there is returned as it is. One timer per piece of work, cleared when it ends.
 */
export function withDeadline<T>(work: T | Promise<T>, ms: number): T | Promise<T | null> {
  if (!(work instanceof Promise)) return work;
  return new Promise<T | null>((resolve, reject) => {
    const timer = setTimeout(resolve, ms, null);
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
