// A GraphQL subscription over server-sent events, read as a browser's EventSource would.
export interface EventStream {
  status: number;
  contentType: string | null;
  /** The next `event: next` payload, or rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<any>;
  /** Whether a keep-alive comment (`:`) has come since the stream opened, besides the first. */
  pings(): number;
  /** Resolves when the server ends the stream. */
  ended(): Promise<void>;
  close(): void;
}

type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export async function openEventStream(
  fetch: Fetch,
  baseUrl: string,
  query: string,
  authorization?: string,
): Promise<EventStream> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      accept: 'text/event-stream',
      'content-type': 'application/json',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({ query }),
    signal: abort.signal,
  });
  const events: any[] = [];
  const waiters: Array<() => void> = [];
  let comments = 0;
  let done = false;
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const reader = response.body?.getReader();
  const reading = (async () => {
    if (!reader) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done: finished, value: chunk } = await reader.read();
        if (finished) break;
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) comments++;
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('\n');
          if (block.includes('event: next') && data) events.push(JSON.parse(data));
        }
        wake();
      }
    } catch {
      // aborted by close()
    }
    done = true;
    wake();
  })();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    async next(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length === 0) {
        if (done) throw new Error('the stream ended');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no event in time');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return events.shift();
    },
    pings: () => Math.max(0, comments - 1),
    ended: () => reading,
    // The abort closes the connection, which tells the server the client went away.
    close: () => {
      abort.abort();
      void reader?.cancel().catch(() => {});
    },
  };
}
