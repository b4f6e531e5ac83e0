/** What a client is told when its operation ran out of time (503, Retry-After). */
export const TOOK_TOO_LONG = 'The request took too long; try again shortly';

/** Work in flight, linked in the order it started (which, for one deadline length, is the order it is due). */
interface Waiting {
  due: number;
  resolve: ((value: null) => void) | null;
  previous: Waiting | null;
  next: Waiting | null;
}

/**
 * The work in flight for one deadline length, swept by one timer: a timer per operation (set, then cleared
 * by nearly every one) cost more than the sweep. A sweep stops at the first entry that is not due.
 *
 * A linked list whose entries are unlinked (and cleared) when their work ends, not a Set: V8's young
 * generation collector keeps what a long-lived Set or Map has held alive after its deletion, so every
 * operation's objects were promoted to the old generation (~0.4 MB per scavenge under load).
 */
function deadlineSweeper(ms: number) {
  const head: Waiting = { due: 0, resolve: null, previous: null, next: null };
  head.previous = head;
  head.next = head;
  // Answered within 5 % of the deadline (at least a millisecond, at most 100 ms late).
  const every = Math.max(1, Math.min(100, Math.ceil(ms / 20)));
  let timer: NodeJS.Timeout | undefined;
  const unlink = (entry: Waiting) => {
    if (entry.next === null) return;
    entry.previous!.next = entry.next;
    entry.next.previous = entry.previous;
    entry.previous = entry.next = null;
    entry.resolve = null;
  };
  const sweep = () => {
    const now = performance.now();
    while (head.next !== head && head.next!.due <= now) {
      const entry = head.next!;
      const resolve = entry.resolve!;
      unlink(entry);
      resolve(null);
    }
    // Stopped by a sweep that finds nothing in flight, not by the last entry's end: under load the list
    // empties and fills again between operations, and a timer set and cleared each time cost more.
    if (head.next === head) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    add(entry: Waiting) {
      if (timer === undefined) {
        timer = setInterval(sweep, every);
        timer.unref();
      }
      entry.previous = head.previous;
      entry.next = head;
      head.previous!.next = entry;
      head.previous = entry;
    },
    delete: unlink,
  };
}

const sweepers = new Map<number, ReturnType<typeof deadlineSweeper>>();

/**
 * The work's result, or null when it is still running after `ms` (the work itself goes on, unseen). A result
 * already there is returned as it is.
 */
export function withDeadline<T>(work: T | Promise<T>, ms: number): T | Promise<T | null> {
  if (!(work instanceof Promise)) return work;
  const deadlines = sweepers.get(ms) ?? deadlineSweeper(ms);
  sweepers.set(ms, deadlines);
  return new Promise<T | null>((resolve, reject) => {
    const entry: Waiting = { due: performance.now() + ms, resolve, previous: null, next: null };
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
