/** What a client is told when its operation ran out of time (503, Retry-After). */
export const TOOK_TOO_LONG = 'The request took too long; try again shortly';

/** The work's result, or null when it is still running after `ms` (the work itself goes on, unseen). */
export async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(resolve, ms, null);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
