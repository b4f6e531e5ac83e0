import { findCredentials, upgradePasswordHash } from './accounts/accounts.service.ts';
import { createAuthenticator } from './accounts/authenticator.ts';
import { createLoginThrottler } from './accounts/throttling.ts';
import { type Clock, museumClock } from './common/dates.ts';
import type { Config } from './config.ts';
import type { AppDeps } from './context.ts';
import { openDatabase } from './db/database.ts';
import { createEventFeed } from './events/event-feed.ts';
import { schema } from './graph/schema.ts';
import { createEngine, type Engine, type EnginePlugin } from './graphql/engine.ts';
import { createErrorMask } from './graphql/errors.ts';
import { createTokenCheck } from './graphql/query-limits.ts';
import { PLAIN_STRING_SCALARS } from './graphql/scalars.ts';
import { graphiqlPages } from './http/graphiql.ts';
import { graphqlEndpoint } from './http/graphql-endpoint.ts';
import { pagesTable } from './http/pages.ts';
import { createPipeline, type Pipeline } from './http/pipeline.ts';
import { stripeWebhook } from './http/stripe-webhook.ts';
import { createWebSockets, type WebSockets } from './http/websocket.ts';
import { createLogger, type Logger } from './logger.ts';
import { createMailer } from './mail/mailer.ts';
import { mailBacklog } from './mail/outbox.ts';
import { mailTransport } from './mail/transport.ts';
import { createMetrics } from './metrics/metrics.ts';
import { purgeOldStripeEvents } from './payments/payments.service.ts';
import { createPayments } from './payments/payments.ts';
import { stripeGateway } from './payments/stripe-gateway.ts';
import { prepareDatabase } from './prepare.ts';
import { runRetention } from './privacy/privacy.service.ts';
import { createRestHandler } from './rest/adapter.ts';
import { routes } from './rest/routes.ts';
import { createCallOff } from './tickets/call-off.ts';
import { purgeExpiredKeys } from './tickets/idempotency.ts';
import { operationSpans } from './tracing.ts';
import { createDispatcher } from './webhooks/dispatcher.ts';
import { purgeOldDeliveries, webhookBacklog } from './webhooks/webhooks.service.ts';

const PURGE_INTERVAL_MS = 60 * 60 * 1000;
/** Requests a second from which an instance is in a rush: its mails wait (one a second) until it is over. */
export const RUSH_REQUESTS_PER_SECOND = 200;

export interface App extends Pipeline {
  /** The engine every transport runs its operations on (src/graphql/engine.ts). */
  engine: Engine;
  /** GraphQL over WebSocket at /graphql: node:http's `upgrade` listener, and the sockets' end. */
  websockets: WebSockets;
}

const GRAPHQL_ENDPOINT = '/graphql';

export interface AppOptions {
  isDraining?: () => boolean;
  /** More engine plugins (envelop's), which every operation passes, whatever its transport. */
  plugins?: EnginePlugin[];
}

/**
 * The whole HTTP application over its dependencies; it never listens (server.ts does). One way in (the
 * pipeline), one way to run an operation (the engine's `run`), for the REST routes and GraphQL alike.
 */
export function createApp(deps: AppDeps, options: AppOptions = {}): App {
  const metrics = deps.config.metrics
    ? createMetrics(deps.db, {
        openSubscriptions: () => deps.feed.size(),
        openWebSockets: () => websockets.size(),
        webhookBacklog: () => webhookBacklog(deps.db.sql),
        mailBacklog: () => mailBacklog(deps.db.sql),
      })
    : undefined;
  // The domains count what they see (check-ins by outcome) in the same registry.
  const requestDeps: AppDeps = metrics ? { ...deps, metrics } : deps;
  if (metrics) deps.payments?.observe(metrics.payments);
  if (metrics) deps.mail?.observe(metrics.mail);
  const mask = createErrorMask(deps.logger);
  const engine = createEngine({
    deps: requestDeps,
    introspection: deps.config.introspection,
    schema,
    plainScalars: PLAIN_STRING_SCALARS,
    trustedDocumentsOnly: deps.config.trustedDocumentsOnly,
    timeoutMs: deps.config.operationTimeoutMs,
    record: metrics?.operation,
    mask,
    plugins: options.plugins,
    spans: operationSpans(),
    tokenCheck: createTokenCheck(),
    trustedDocuments: deps.config.trustedDocuments,
  });
  const websockets = createWebSockets({
    path: GRAPHQL_ENDPOINT,
    engine,
    authenticator: deps.authenticator,
    corsOrigins: deps.config.corsOrigins,
    trustProxy: deps.config.trustProxy,
    maxPerClient: deps.config.websocketsPerClient,
    logger: deps.logger,
  });
  const graphiql = deps.config.graphiql ? graphiqlPages() : undefined;
  const pipeline = createPipeline({
    pages: pagesTable({
      db: deps.db,
      isDraining: options.isDraining ?? (() => false),
      metrics,
      graphiqlAssets: graphiql?.assets,
      stripeWebhook: stripeWebhook(deps, mask),
    }),
    graphqlPath: GRAPHQL_ENDPOINT,
    graphql: graphqlEndpoint({ engine, graphiql: graphiql?.page, keepAliveMs: deps.config.keepAliveMs }),
    rest: createRestHandler(engine.run, schema, routes, deps.logger, {
      payments: deps.config.payments.mode !== 'none',
    }),
    corsOrigins: deps.config.corsOrigins,
    trustProxy: deps.config.trustProxy,
    metrics,
    logger: deps.logger,
  });
  return { ...pipeline, engine, websockets };
}

export interface Museum {
  app: App;
  deps: AppDeps;
  /**
   * Ends the open `specialEventPublished` streams and closes the WebSockets (1001: clients reconnect
   * elsewhere), so that a draining server has no request left waiting.
   */
  endStreams(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the database, applies migrations and start-up data, and builds the app: everything `npm start`
 * and the tests share.
 */
export async function openMuseum(
  config: Config,
  options: AppOptions & {
    logger?: Logger;
    announce?: (line: string) => void;
    /** What "today" and "now" are (tests move it); default: the museum's time zone's. */
    clock?: Clock;
  } = {},
): Promise<Museum> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? museumClock(config.timeZone);
  /** The app, once made: the mailer asks it how busy the instance is. */
  let serving: App | undefined;
  const db = await openDatabase(config.database);
  try {
    await prepareDatabase(db, config, logger, options.announce);
    // One line: how the database is reached (direct, behind a transaction pooler, with replicas).
    logger.info(`database: ${db.mode.description}`, { databaseMode: db.mode.mode });
    const throttle = createLoginThrottler(db.sql);
    const authenticator = createAuthenticator({
      findAccount: (name) => findCredentials(db.sql, name),
      upgradeHash: (account, password) => upgradePasswordHash(db.sql, account, password),
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
    const transport = mailTransport(config.mail.transport);
    logger.info(`mail to buyers: ${transport.description}`);
    const mail = createMailer({
      sql: db.sql,
      transport,
      settings: {
        museumName: config.mail.museumName,
        from: config.mail.from,
        timeZone: config.timeZone,
        currency: config.currency,
      },
      logger,
      retrySchedule: config.mail.retrySchedule,
      ratePerSecond: config.mail.ratePerSecond,
      // Drawing a mail takes a few milliseconds of the one thread requests need too: in a rush, they go first.
      busy: () => (serving?.requestsPerSecond() ?? 0) >= RUSH_REQUESTS_PER_SECOND,
    });
    const { payments: paymentSettings } = config;
    const payments =
      paymentSettings.mode === 'stripe'
        ? createPayments({
            sql: db.sql,
            gateway: await stripeGateway(paymentSettings),
            settings: paymentSettings,
            currency: config.currency,
            logger,
            rules: () => ({ today: clock.today(), dailyCapacity: config.dailyCapacity }),
            mailQueued: mail.wake,
          })
        : undefined;
    const deps: AppDeps = {
      config,
      db,
      clock,
      authenticator,
      logger,
      throttle,
      feed,
      webhooks,
      payments,
      mail,
      callOff: createCallOff({ payments, mail }),
      forgetMails: (mailIds) => transport.forget(mailIds),
    };
    // Personal data past MUSEUM_RETENTION_DAYS is erased once a museum day, by whichever instance comes first.
    const retention = () =>
      runRetention(db.sql, clock.today(), config.retentionDays, deps.forgetMails).then(
        (run) => run && logger.info('personal data past retention erased', { ...run.counts }),
        (error) => logger.warn('erasing personal data past retention failed', { error: String(error) }),
      );
    const retentionRun = retention();
    const purge = setInterval(() => {
      void retention();
      purgeExpiredKeys(db.sql).catch((error) =>
        logger.warn('purging idempotency keys failed', { error: String(error) }),
      );
      throttle
        .purge()
        .catch((error) => logger.warn('purging login counters failed', { error: String(error) }));
      purgeOldDeliveries(db.sql).catch((error) =>
        logger.warn('purging webhook deliveries failed', { error: String(error) }),
      );
      purgeOldStripeEvents(db.sql).catch((error) =>
        logger.warn('purging Stripe event ids failed', { error: String(error) }),
      );
    }, PURGE_INTERVAL_MS);
    purge.unref();
    const app = createApp(deps, options);
    serving = app;
    return {
      app,
      deps,
      async endStreams() {
        await app.websockets.close();
        await feed.close();
      },
      async close() {
        clearInterval(purge);
        await retentionRun;
        await app.websockets.close();
        await feed.close();
        await webhooks?.close();
        await payments?.close();
        await mail.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
