import { createServerAdapter } from '@whatwg-node/server';
import type { DocumentNode } from 'graphql';
import { YogaServer, type YogaServerInstance } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { RequestContext } from '../context.ts';
import { schema } from '../graph/schema.ts';
import type { EnginePlugin } from '../graphql/engine.ts';
import { clientKind, describe } from '../graphql/errors.ts';
import type { RunOperation } from '../graphql/operations.ts';
import type { Logger } from '../logger.ts';
import type { HttpRequest } from '../protocol/request.ts';
import { useRefusalBodies } from './use-refusal-bodies.ts';

export type Yoga = YogaServerInstance<Record<string, unknown>, RequestContext>;

/** How many documents yoga keeps parsed and validated, the least recently used forgotten first. */
const CACHED_DOCUMENTS = 1_000;
/** Longer documents are parsed each time: the clients that repeat a query send a short one. */
const CACHED_LENGTH = 16 * 1024;

/** Yoga's cache of parsed documents (and of syntax errors), bounded in count and in each document's length. */
function documentCache<T extends DocumentNode | Error>() {
  const cache = new LRUCache<string, T>({ max: CACHED_DOCUMENTS });
  return {
    get: (source: string) => cache.get(source),
    set(source: string, value: T) {
      if (source.length <= CACHED_LENGTH) cache.set(source, value);
    },
  };
}

/** What a yoga request carries from the pipeline: the request it came as. */
interface YogaServerContext {
  transport: HttpRequest;
}

/**
 * Yoga: the engine every operation runs on (its enveloped execution, with the engine's plugins,
 * src/graphql/engine.ts), and GraphQL over server-sent events (subscriptions), whose parameters it reads
 * and hands to the one operation runner, like every other transport's.
 */
export function createYogaServer(
  endpoint: string,
  logger: Logger,
  enginePlugins: EnginePlugin[],
  runOperation: RunOperation,
): Yoga {
  const server = new YogaServer<Record<string, unknown>, RequestContext>({
    schema,
    graphqlEndpoint: endpoint,
    // The engine's plugins mask every result (envelop's useMaskedErrors): yoga's would log each error again.
    maskedErrors: false,
    // Each document parsed once; its validation is kept by the engine (src/graphql/plugins/use-document-checks.ts).
    parserAndValidationCache: {
      documentCache: documentCache(),
      errorCache: documentCache(),
      validationCache: false,
    },
    // A trusted document's id; the runner resolves it.
    extraParamNames: ['documentId'],
    graphiql: false,
    landingPage: false,
    healthCheckEndpoint: undefined,
    batching: false,
    // Cross-origin browsers are not served until an allow-list is configured (src/http/edge-headers.ts).
    cors: false,
    // Yoga's own lines: the message only (never its request details), and errors without their SQL.
    logging: {
      debug: (...args) => logger.debug(describe(args[0])),
      info: (...args) => logger.info(describe(args[0])),
      warn: (...args) => logger.warn(describe(args[0])),
      error: (...args) => {
        // Yoga reports every error its mask replaced; one the client caused is no fault of the service.
        const kind = clientKind(args[0]);
        if (kind) logger.info('client error', { kind, message: (args[0] as Error).message });
        else logger.error(describe(args[0]));
      },
    },
    plugins: [
      ...enginePlugins,
      useRefusalBodies(),
      {
        onParams({ params, request, setParamsHandler, context }) {
          const { transport } = context as unknown as YogaServerContext;
          setParamsHandler(() =>
            runOperation(transport, params as never, { method: request.method, incremental: true }),
          );
        },
      },
    ],
  });
  // What createYoga does, but telling the adapter that its Request is not the global one (yoga's own is
  // @whatwg-node/node-fetch's) instead of letting it compare them: reading the global Request makes Node load
  // its bundled undici, which no request here uses (4–5 MB of resident memory, measured at idle).
  return createServerAdapter(server, {
    fetchAPI: server.fetchAPI,
    // biome-ignore lint/complexity/useLiteralKeys: protected in yoga's types; createYoga reads it the same way.
    plugins: server['plugins'],
    __useCustomAbortCtrl: true,
  });
}
