// A webhook receiver on 127.0.0.1: records every POST it gets and answers what the test tells it to.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { record } from './leak-recording.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `count` messages have come, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

type Answer = number | { status: number; headers?: Record<string, string>; body?: string } | 'never';

/**
 * `answer` gets the 1-based number of the request and says the status (and optionally headers, body), or
 * `never`: the request is read and left unanswered.
 */
export async function startReceiver(answer: (n: number) => Answer = () => 202): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, body: message });
      record('webhooks', message);
      const answered = answer(received.length);
      for (const wake of waiters.splice(0)) wake();
      if (answered === 'never') return;
      const { status, headers, body } = typeof answered === 'number' ? { status: answered } : answered;
      res.writeHead(status, headers);
      res.end(body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} messages, got ${received.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `probe` until it returns something truthy, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
