import { createServerAdapter } from '@whatwg-node/server';
import { YogaServer, type YogaServerInstance } from 'graphql-yoga';
import { findCredentials } from './accounts/accounts.service.ts';
import { createAuthenticator } from './accounts/authenticator.ts';
import { createLoginThrottler } from './accounts/throttling.ts';
import { museumClock } from './common/dates.ts';
import type { Config } from './config.ts';
import { type AppDeps, createRequestContext, type RequestContext } from './context.ts';
import { openDatabase } from './db/database.ts';
import { prepareDatabase } from './db/prepare.ts';
import { createEventFeed } from './events/event-feed.ts';
import { clientKind, createErrorMask, describe } from './graphql/errors.ts';
import { schema } from './graphql/schema.ts';
import { clientAddress } from './http/client-address.ts';
import {
  type CompiledGraphQL,
  createCompiledGraphQL,
  createCompiledRunner,
} from './http/compiled-graphql.ts';
import { createFront, type Front, type ServerContext } from './http/front.ts';
import { createMetrics, type Metrics } from './http/observe.ts';
import { createLogger, type Logger } from './logger.ts';
import { gateRefusal, useAuthGate } from './plugins/use-auth-gate.ts';
import { useCompiledQueries } from './plugins/use-compiled-queries.ts';
import { DOCS_PATHS, useDocs } from './plugins/use-docs.ts';
import { useExecutionTimeout } from './plugins/use-execution-timeout.ts';
import { useGraphiQL } from './plugins/use-graphiql.ts';
import { useInputErrors } from './plugins/use-input-errors.ts';
import { useQueryLimits } from './plugins/use-query-limits.ts';
import { useQueryValidators } from './plugins/use-query-validators.ts';
import { useRefusalBodies } from './plugins/use-refusal-bodies.ts';
import { useTracing } from './plugins/use-tracing.ts';
import { useTrustedDocuments } from './plugins/use-trusted-documents.ts';
import { createRestHandler, type RestRequest } from './rest/adapter.ts';
import { routes } from './rest/routes.ts';
import { purgeExpiredKeys } from './tickets/idempotency.ts';
import { tracing } from './tracing.ts';
import { createDispatcher } from './webhooks/dispatcher.ts';
import { purgeOldDeliveries, webhookBacklog } from './webhooks/webhooks.service.ts';

const PURGE_INTERVAL_MS = 60 * 60 * 1000;

export type Yoga = YogaServerInstance<Record<string, unknown>, RequestContext>;

export interface App extends Front {
  yoga: Yoga;
  compiledGraphQL: CompiledGraphQL;
}

const GRAPHQL_ENDPOINT = '/graphql';

const isDocsPath = (pathname: string) =>
  pathname === DOCS_PATHS.openapi ||
  pathname === DOCS_PATHS.docs ||
  pathname.startsWith(`${DOCS_PATHS.docs}/`);

/** The whole HTTP application over its dependencies; it never listens (server.ts does). */
export function createApp(deps: AppDeps, options: { isDraining?: () => boolean } = {}): App {
  const metrics = deps.config.metrics
    ? createMetrics(deps.db, {
        openSubscriptions: () => deps.feed.size(),
        webhookBacklog: () => webhookBacklog(deps.db.sql),
      })
    : undefined;
  // Compiled queries run outside envelop (REST reads, the GraphQL lane) with the same context, deadline
  // and metrics.
  const runner = createCompiledRunner({
    context: (request) => createRequestContext(deps, request.header, request.address),
    timeoutMs: deps.config.operationTimeoutMs,
    onOperation: metrics ? (name, seconds) => metrics.operation(name, 'query', seconds) : undefined,
  });
  const compiledGraphQL = createCompiledGraphQL({
    runner,
    // With trusted documents only, a visitor's query must go through yoga, which checks it is one.
    admits: (operation, contextValue) =>
      gateRefusal(schema, operation, contextValue) === null &&
      (!deps.config.trustedDocumentsOnly || contextValue.principal?.role === 'staff'),
  });
  const yoga = createGraphQLServer(deps, metrics, compiledGraphQL);
  const rest = createRestHandler(yoga, routes, deps.logger, runner);
  const front = createFront({
    yoga,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    rest,
    compiledGraphQL,
    db: deps.db,
    isDraining: options.isDraining ?? (() => false),
    servedByYoga: (pathname) => pathname === GRAPHQL_ENDPOINT || isDocsPath(pathname),
    corsOrigins: deps.config.corsOrigins,
    trustProxy: deps.config.trustProxy,
    metrics,
    logger: deps.logger,
  });
  return { ...front, yoga, compiledGraphQL };
}

/** Initial context of a REST operation (src/rest/adapter.ts), beside what yoga gives a GraphQL request. */
interface InitialContext extends ServerContext {
  request: Request;
  rest?: RestRequest;
}

/** Yoga: GraphQL over HTTP, GraphiQL and the documentation, and the envelop that REST operations run in. */
function createGraphQLServer(
  deps: AppDeps,
  metrics: Metrics | undefined,
  compiledGraphQL: CompiledGraphQL,
): Yoga {
  const { logger } = deps;
  const server = new YogaServer<Record<string, unknown>, RequestContext>({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    context: async (initial) => {
      // Read by property, not spread: yoga hands the server context down its prototype chain.
      const { request, rest, observation, req, prepared } = initial as unknown as InitialContext;
      if (rest) return prepared ?? createRequestContext(deps, rest.header, rest.address);
      const context =
        prepared ??
        req?.prepared ??
        (await createRequestContext(
          deps,
          (name) => request.headers.get(name),
          clientAddress({ req }, request, deps.config.trustProxy),
        ));
      const observed = observation ?? req?.observation;
      if (observed) observed.account = context.principal?.name;
      return context;
    },
    maskedErrors: { maskError: createErrorMask(logger) },
    // Served by useGraphiQL below: compressed and cached, rendered once.
    graphiql: false,
    landingPage: false,
    healthCheckEndpoint: undefined,
    batching: false,
    // Cross-origin browsers are not served until an allow-list is configured.
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
      // First: the plugins after it that wrap execution (tracing, the deadline) wrap the compiled run.
      useCompiledQueries(compiledGraphQL),
      useRefusalBodies(),
      ...(metrics ? [metrics.plugin()] : []),
      ...(tracing.enabled ? [useTracing()] : []),
      ...(deps.config.graphiql ? [useGraphiQL(GRAPHQL_ENDPOINT)] : []),
      useQueryLimits({ introspection: deps.config.introspection }),
      useExecutionTimeout(deps.config.operationTimeoutMs),
      useAuthGate(),
      useInputErrors(),
      useDocs(),
      ...(deps.config.trustedDocuments
        ? useTrustedDocuments(deps.config.trustedDocuments, deps.config.trustedDocumentsOnly)
        : []),
      useQueryValidators(GRAPHQL_ENDPOINT),
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

export interface Museum {
  app: App;
  deps: AppDeps;
  /** Ends the open `specialEventPublished` streams, so that a draining server has no request left waiting. */
  endStreams(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the database, applies migrations and start-up data, and builds the app: everything `npm start`
 * and the tests share.
 */
export async function openMuseum(
  config: Config,
  options: { logger?: Logger; isDraining?: () => boolean; announce?: (line: string) => void } = {},
): Promise<Museum> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = museumClock(config.timeZone);
  const db = await openDatabase(config.database);
  try {
    await prepareDatabase(db, config, logger, options.announce);
    const throttle = createLoginThrottler(() => db.fork());
    const authenticator = createAuthenticator({
      findAccount: (name) => findCredentials(db.fork(), name),
      throttle,
      audit: (message, fields) => logger.warn(message, fields),
    });
    const webhooks = config.webhooks.worker
      ? createDispatcher({
          sql: db.sql,
          logger,
          retrySchedule: config.webhooks.retrySchedule,
          allowPrivate: config.webhooks.allowPrivate,
          alone: db.kind === 'embedded',
        })
      : undefined;
    const feed = createEventFeed({
      db,
      logger,
      maxPerAccount: config.liveSubscriptionsPerAccount,
      onQueued: () => webhooks?.wake(),
    });
    const deps: AppDeps = { config, db, clock, authenticator, logger, throttle, feed, webhooks };
    const purge = setInterval(() => {
      purgeExpiredKeys(db.fork()).catch((error) =>
        logger.warn('purging idempotency keys failed', { error: String(error) }),
      );
      throttle
        .purge()
        .catch((error) => logger.warn('purging login counters failed', { error: String(error) }));
      purgeOldDeliveries(db.sql).catch((error) =>
        logger.warn('purging webhook deliveries failed', { error: String(error) }),
      );
    }, PURGE_INTERVAL_MS);
    purge.unref();
    return {
      app: createApp(deps, options),
      deps,
      endStreams: () => feed.close(),
      async close() {
        clearInterval(purge);
        await feed.close();
        await webhooks?.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
