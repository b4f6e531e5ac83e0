import type { Logger } from '../logger.ts';

/** What a background worker's round answers: milliseconds until it should look again (null: only when woken). */
export type NextRound = number | null;

export interface WorkerLoop {
  /** There may be work now: runs a round at once, or right after the one under way. */
  wake(): void;
  /** Looks again in `ms` (null: only when woken), whatever the last round said. */
  later(ms: NextRound): void;
  /** Whether close() was called: a round under way stops what it can. */
  readonly closed: boolean;
  /** Stops the timer and waits for the round under way. */
  close(): Promise<void>;
}

/**
 * One worker of an instance (the webhook dispatcher, the payments): one round at a time, a wake during a round
 * runs another right after it, the next round is timed by what the last one found, and a round that throws is
 * logged and tried again after `retryMs`. Timers never keep the process alive.
 */
export function workerLoop(options: {
  /** A round of work; its answer times the next (or call `later` in it and answer undefined). */
  round: () => Promise<NextRound | undefined>;
  logger: Logger;
  /** Named in the warning of a round that failed. */
  name: string;
  /** The longest wait between rounds (other instances' work is found this often); null: none. */
  pollMs: number | null;
  retryMs?: number;
}): WorkerLoop {
  const { logger, pollMs, retryMs = 5_000 } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;

  const later = (ms: NextRound) => {
    clearTimeout(timer);
    const wait = pollMs === null ? ms : Math.min(ms ?? pollMs, pollMs);
    if (closed || wait === null) return;
    timer = setTimeout(wake, Math.max(0, wait));
    timer.unref();
  };

  function wake(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = options
      .round()
      .then((next) => {
        if (next !== undefined) later(next);
      })
      .catch((error) => {
        logger.warn(`${options.name} failed; trying again shortly`, { error: String(error) });
        later(retryMs);
      })
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          wake();
        }
      });
  }

  return {
    wake,
    later,
    get closed() {
      return closed;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}
