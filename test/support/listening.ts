// A museum the tests reach as its clients do: over a socket, through the node:http server `npm start` runs
// (src/http/http-server.ts: its limits, the edge's guards, the app, the WebSocket upgrade), on 127.0.0.1.
import type { AddressInfo } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import type { Museum } from '../../src/app.ts';
import { createHttpServer } from '../../src/http/http-server.ts';

/** Where a test request comes from: a loopback address (127.0.0.0/8) the client's socket is bound to. */
export interface From {
  from?: string;
}

/** Like fetch; a URL's origin is the museum's whatever it names (tests write `http://museum.test/...`). */
export type MuseumFetch = (input: string, init?: RequestInit, from?: From) => Promise<Response>;

export interface Listening {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  fetch: MuseumFetch;
  /** Stops listening and closes every connection. */
  stop(): Promise<void>;
}

/** One agent per source address, for the whole test process (an agent pools its connections). */
const agents = new Map<string, Agent>();
const agentFrom = (address: string) => {
  let agent = agents.get(address);
  if (!agent) {
    agent = new Agent({ localAddress: address });
    agents.set(address, agent);
  }
  return agent;
};

/** Listens for `museum` on 127.0.0.1 (a port of its own), as server.ts does. */
export async function listen(museum: Pick<Museum, 'deps' | 'app'>): Promise<Listening> {
  const server = createHttpServer(museum.deps.config, museum.deps.logger, museum.app.handleNode);
  server.on('upgrade', (req, socket, head) => museum.app.websockets.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    fetch(input, init, from) {
      // The path as the test wrote it: not parsed as a URL (`//x` would name a host, `..` be resolved).
      const local = `${url}${input.replace(/^https?:\/\/[^/]*/, '')}`;
      if (!from?.from) return fetch(local, init);
      return undiciFetch(local, {
        ...(init as object),
        dispatcher: agentFrom(from.from),
      }) as unknown as Promise<Response>;
    },
    stop() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
