// What the attack tests share: raw sockets (for what fetch will not send) and a legitimate client.
import { connect, type Socket } from 'node:net';
import { expect } from 'vitest';
import { basic, STAFF } from '../support/museum.ts';
import type { RunningServer } from '../support/server.ts';

export const staff = basic(STAFF.name, STAFF.password);

export const portOf = (server: RunningServer) => Number(new URL(server.url).port);

/** Sends `text` as it is and resolves with everything the server wrote until it closed (or `timeoutMs`). */
export function raw(server: RunningServer, text: string | Buffer, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(portOf(server), '127.0.0.1');
    let received = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.on('close', done);
    socket.on('error', done);
    socket.write(text);
  });
}

/** The status code of a raw HTTP answer (0: none). */
export const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);

/** The JSON body of a raw HTTP answer with Content-Length. */
export function bodyOf(answer: string): unknown {
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return JSON.parse(body);
}

/** Opens `count` connections that each send `head` (and nothing more), kept open until `close()`. */
export async function stalled(server: RunningServer, count: number, head: string) {
  const sockets: Socket[] = [];
  const answers: string[] = Array.from({ length: count }, () => '');
  await Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<void>((resolve) => {
          const socket = connect(portOf(server), '127.0.0.1', () => {
            socket.write(head, () => resolve());
          });
          socket.on('data', (chunk) => {
            answers[i] = `${answers[i]}${chunk}`;
          });
          socket.on('error', () => resolve());
          sockets.push(socket);
        }),
    ),
  );
  return {
    answers,
    close() {
      for (const socket of sockets) socket.destroy();
    },
    /** Resolves once every connection was closed by the server. */
    closedByServer: () =>
      Promise.all(
        sockets.map((s) => (s.closed ? undefined : new Promise((resolve) => s.once('close', resolve)))),
      ),
  };
}

/** A legitimate client's request, which must keep succeeding during and after every attack. */
export async function expectServed(server: RunningServer, headers: Record<string, string> = {}) {
  const live = await fetch(`${server.url}/health/live`, { headers });
  expect(live.status).toBe(200);
  const hours = await fetch(`${server.url}/museum-hours?limit=1`, {
    headers: { authorization: staff, ...headers },
  });
  expect(hours.status).toBe(200);
  expect(await hours.json()).toHaveLength(1);
}

/** A POST head announcing `length` bytes of JSON body. */
export const postHead = (path: string, length: number, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${staff}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;
