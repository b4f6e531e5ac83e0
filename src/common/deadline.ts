/** What a client is told when its operation ran out of time (503, Retry-After). */
export const TOOK_TOO_LONG = 'The request took too long; try again shortly';

interface Waiting {
  due: number;
  resolve(value: null): void;
}

/**
 * The work in flight for one deadline length, swept by one timer: a timer per operation (set, then cleared
 * by nearly every one) cost more than the sweep. Work is kept in the order it started, which for one length
 * is the order of its deadlines, so a sweep stops at the first that is not due.
 */
function deadlineSweeper(ms: number) {
  const waiting = new Set<Waiting>();
  // Answered within 5 % of the deadline (at least a millisecond, at most 100 ms late).
  const every = Math.max(1, Math.min(100, Math.ceil(ms / 20)));
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = performance.now();
    for (const entry of waiting) {
      if (entry.due > now) break;
      waiting.delete(entry);
      entry.resolve(null);
    }
    if (waiting.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    add(entry: Waiting) {
      waiting.add(entry);
      if (!timer) {
        timer = setInterval(sweep, every);
        timer.unref();
      }
    },
    delete: (entry: Waiting) => waiting.delete(entry),
  };
}

const sweepers = new Map<number, ReturnType<typeof deadlineSweeper>>();

/** The work's result, or null when it is still running after `ms` (the work itself goes on, unseen). */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | null> {
  const deadlines = sweepers.get(ms) ?? deadlineSweeper(ms);
  sweepers.set(ms, deadlines);
  return new Promise<T | null>((resolve, reject) => {
    const entry: Waiting = { due: performance.now() + ms, resolve };
    deadlines.add(entry);
    work.then(
      (value) => {
        deadlines.delete(entry);
        resolve(value);
      },
      (error) => {
        deadlines.delete(entry);
        reject(error);
      },
    );
  });
}
