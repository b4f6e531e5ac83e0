import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ExecutionArgs, GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Authenticator } from '../accounts/authenticator.ts';
import type { ErrorKind } from '../common/errors.ts';
import { nodeHttp } from '../common/node-http.ts';
import type { Engine, PreparedOperation } from '../graphql/engine.ts';
import { operationSource } from '../graphql/operations.ts';
import type { Logger } from '../logger.ts';
import { addressOf, type TrustedProxies } from '../protocol/client-address.ts';
import { problemAnswer } from '../protocol/problem.ts';
import { BODY_LIMIT_BYTES, headerReader } from '../protocol/request.ts';

/** A socket that answers no pong for this long is gone: it is closed, and its subscriptions end. */
const KEEP_ALIVE_MS = 30_000;
/** A client that opens a socket and says nothing (no connection_init) within this is closed with 4408. */
const CONNECTION_INIT_WAIT_MS = 3_000;

export interface WebSocketOptions {
  path: string;
  engine: Engine;
  authenticator: Authenticator;
  corsOrigins: string[];
  trustProxy: TrustedProxies;
  /** Open sockets one client address may hold; the next upgrade is answered 429. */
  maxPerClient: number;
  logger: Logger;
}

export interface WebSockets {
  /** node:http's `upgrade` listener: GraphQL over WebSocket (graphql-ws's protocol) at `path`. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open sockets, for the metrics. */
  size(): number;
  /** Closes every socket with 1001 (going away), so clients reconnect to another instance. */
  close(): Promise<void>;
}

/** What a socket keeps from its upgrade and its connection_init. */
interface Connection {
  address: string;
  header: (name: string) => string | null;
  /** The credentials checked at connection_init: from its payload, else from the upgrade's header. */
  authorization: string | null;
  /** Each running operation's end: the client's complete, or the socket's close, ends its stream's source. */
  operations: Map<string, AbortController>;
}

/**
 * GraphQL over WebSocket, as the `graphql-ws` package (graphql-transport-ws) speaks it, for Apollo Client's
 * GraphQLWsLink, urql, Relay and gateways. Every message runs through the one operation runner, exactly as a
 * POST does: credentials checked once at connection_init (none closes the socket with 4401; a wrong or
 * throttled one with 4403, counted as a failed login), the auth gate, limits, deadlines and subscription caps
 * per operation.
 * Browsers may open a socket only from this origin or an allowed one (cross-site WebSocket hijacking).
 */
export function createWebSockets(options: WebSocketOptions): WebSockets {
  const { logger, engine } = options;
  const allowedOrigins = new Set(options.corsOrigins);
  const perClient = new Map<string, number>();
  const connections = new WeakMap<IncomingMessage, Connection>();
  const server = new WebSocketServer({ noServer: true, maxPayload: BODY_LIMIT_BYTES });

  useServer<Record<string, unknown>>(
    {
      connectionInitWaitTimeout: CONNECTION_INIT_WAIT_MS,
      async onConnect(ctx) {
        const connection = connections.get(ctx.extra.request);
        if (!connection) return false;
        const given = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
        connection.authorization = typeof given === 'string' ? given : connection.header('authorization');
        // Every operation needs an account (C2): a socket without credentials is closed here, as HTTP answers
        // 401, rather than opened to refuse each operation. graphql-ws's 4401; its own 4403 follows unsent.
        if (!connection.authorization) {
          ctx.extra.socket.close(4401, 'Unauthorized: send the credentials in connection_init');
          return false;
        }
        const auth = await options.authenticator.authenticate(connection.authorization, connection.address);
        if (auth.status === 'rejected' || auth.status === 'throttled') {
          logger.info('websocket refused', { reason: auth.status, address: connection.address });
          return false;
        }
        return true;
      },
      // Yoga's graphql-ws recipe: the engine prepares the operation (document checked, context made) and
      // graphql-ws runs it; a refusal before it runs is graphql-ws's `error` message.
      async onSubscribe(ctx, id, payload) {
        const connection = connections.get(ctx.extra.request)!;
        const source = operationSource(payload as unknown as Record<string, unknown>, engine.documentIds);
        if (source instanceof GraphQLError) return [source];
        const ended = new AbortController();
        connection.operations.set(id, ended);
        const prepared = await engine.prepare({
          ...source,
          method: 'POST',
          caller: { authorization: connection.authorization, address: connection.address },
          signal: ended.signal,
          incremental: true,
        });
        if (!('run' in prepared)) return [...(prepared.errors ?? [])] as GraphQLError[];
        return { ...prepared.args, rootValue: prepared };
      },
      execute: (args: ExecutionArgs) => (args.rootValue as PreparedOperation).run() as never,
      subscribe: (args: ExecutionArgs) => (args.rootValue as PreparedOperation).run() as never,
      onComplete(ctx, id) {
        const operations = connections.get(ctx.extra.request)?.operations;
        operations?.get(id)?.abort();
        operations?.delete(id);
      },
      onClose(ctx) {
        const operations = connections.get(ctx.extra.request)?.operations;
        for (const ended of operations?.values() ?? []) ended.abort();
        operations?.clear();
      },
    },
    server,
    KEEP_ALIVE_MS,
  );

  /** The upgrade's refusal: a problem+json answer, written on the raw socket (the WebSocket never opens). */
  function refuse(socket: Duplex, kind: ErrorKind, detail: string, headers: Record<string, string> = {}) {
    const answer = problemAnswer(kind, detail, [], headers);
    const lines = [
      `HTTP/1.1 ${answer.status} ${nodeHttp.STATUS_CODES[answer.status]}`,
      ...Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`),
      `Content-Length: ${Buffer.byteLength(answer.body)}`,
      'Connection: close',
    ];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${answer.body}`);
  }

  /** Whether a browser's page may open a socket here: this origin, or one of CORS_ORIGINS. */
  function originAllowed(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return true; // not a browser's page: its credentials are its own
    if (allowedOrigins.has(origin)) return true;
    const host = req.headers.host;
    return origin === `http://${host}` || origin === `https://${host}`;
  }

  return {
    handleUpgrade(req, socket, head) {
      const pathname = (req.url ?? '/').split('?')[0];
      if (pathname !== options.path)
        return refuse(socket, 'notFound', `There is no WebSocket at ${pathname}`);
      if (!originAllowed(req)) {
        logger.info('websocket refused', { reason: 'origin', origin: req.headers.origin });
        return refuse(socket, 'forbidden', 'A page of another origin may not open a WebSocket here');
      }
      const address = addressOf(req.socket.remoteAddress, req.headers['x-forwarded-for'], options.trustProxy);
      const held = perClient.get(address) ?? 0;
      if (held >= options.maxPerClient)
        return refuse(socket, 'tooManyRequests', `At most ${options.maxPerClient} WebSockets per client`, {
          'Retry-After': '5',
        });
      server.handleUpgrade(req, socket, head, (websocket) => {
        perClient.set(address, (perClient.get(address) ?? 0) + 1);
        connections.set(req, {
          address,
          header: headerReader(req.headers),
          authorization: null,
          operations: new Map(),
        });
        websocket.once('close', () => {
          const left = (perClient.get(address) ?? 1) - 1;
          if (left > 0) perClient.set(address, left);
          else perClient.delete(address);
        });
        server.emit('connection', websocket, req);
      });
    },
    size: () => server.clients.size,
    async close() {
      const closed = [...server.clients].map(
        (websocket) =>
          new Promise<void>((resolve) => {
            websocket.once('close', () => resolve());
            websocket.close(1001, 'Going away');
            // A client that does not answer the close is cut off.
            setTimeout(() => {
              websocket.terminate();
              resolve();
            }, 2_000).unref();
          }),
      );
      await Promise.all(closed);
    },
  };
}
