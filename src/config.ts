import { join } from 'node:path';
import type { DatabaseSettings } from './db/settings.ts';
import { configSchema, type EnvConfig, STRIPE_SETTINGS } from './environment.ts';
import { loadTrustedDocuments, type TrustedDocuments } from './graphql/trusted-documents.ts';
import type { MailTransportSettings } from './mail/transport.ts';
import { NO_PROXY, type TrustedProxies } from './protocol/client-address.ts';
import { DEFAULT_RETRY_SCHEDULE } from './webhooks/webhooks.rules.ts';

export interface Config {
  port: number;
  host: string;
  database: DatabaseSettings;
  /** Demo events are seeded only on a fresh embedded database kept on disk, never on a real server. */
  seedDemoEvents: boolean;
  timeZone: string;
  admin: { name: string; password: string } | null;
  dailyCapacity: number | null;
  /** ISO 4217 code of every amount; amounts are kept in its hundredths (src/common/money.ts). */
  currency: string;
  /** How long before its slot starts, and after it ends, a timed ticket is admitted. */
  entryGraceMinutes: number;
  logLevel: EnvConfig['LOG_LEVEL'];
  /** GraphQL introspection (and field suggestions in errors); GraphiQL needs it. */
  introspection: boolean;
  graphiql: boolean;
  /** Origins whose browsers get CORS headers; empty: none. */
  corsOrigins: string[];
  /** The proxies whose `X-Forwarded-For` names the client (none: the connection's peer is the client). */
  trustProxy: TrustedProxies;
  maxConcurrentRequests: number;
  maxConcurrentRequestsPerClient: number;
  /** How long a client has to send its request headers, and its whole request, before 408. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** How long one operation may run before it is answered 503. */
  operationTimeoutMs: number;
  /** How often a server-sent event stream says it is alive while nothing else comes (MUSEUM_SSE_KEEPALIVE_MS). */
  keepAliveMs: number;
  /** Prometheus metrics at /metrics (open, as C2 says). */
  metrics: boolean;
  /** Seconds to keep trying an unreachable database at start-up before giving up. */
  dbConnectTimeoutSeconds: number;
  /** Where OpenTelemetry spans go (OTLP/HTTP); unset: no tracing. */
  otlpEndpoint: string | null;
  /** Documents a request may name by `documentId` (MUSEUM_TRUSTED_DOCUMENTS); null: none. */
  trustedDocuments: TrustedDocuments | null;
  /** Visitors may run trusted documents only. */
  trustedDocumentsOnly: boolean;
  webhooks: {
    /** Seconds before each retry of a failed delivery; after the last, the delivery has failed. */
    retrySchedule: readonly number[];
    /** Subscriptions may point at http:// and private addresses (development and tests only). */
    allowPrivate: boolean;
    /** Whether this instance delivers (off: it only queues; another instance must deliver). */
    worker: boolean;
  };
  /** Open `specialEventPublished` subscriptions one account may hold. */
  liveSubscriptionsPerAccount: number;
  /** Open GraphQL-over-WebSocket sockets one client address may hold. */
  websocketsPerClient: number;
  /** How a visitor's order is paid: `none` confirms it at once; `stripe` holds its seats until Checkout is paid. */
  payments: PaymentSettings;
  /** The mails to buyers (src/mail/). */
  mail: MailConfig;
  /** Days after a visit its buyer's address is kept (src/privacy/). */
  retentionDays: number;
  /** The key of the privacy record's subject hashes; null: one kept in the database. */
  privacyKey: string | null;
}

export interface MailConfig {
  museumName: string;
  from: string;
  transport: MailTransportSettings;
  /** Seconds before each retry of a mail the server did not take; the last repeats. */
  retrySchedule: number[];
  ratePerSecond: number;
}

/** Mail's retries: within a minute while a server restarts, then hourly. */
const DEFAULT_MAIL_RETRY_SCHEDULE = [5, 15, 30, 60, 300, 900, 3600];

export type PaymentSettings = { mode: 'none' } | StripeSettings;

export interface StripeSettings {
  mode: 'stripe';
  secretKey: string;
  webhookSecret: string;
  /** Where Checkout sends the visitor back; `{orderId}` is replaced by the order's id. */
  successUrl: string;
  cancelUrl: string;
  /** Another host answering Stripe's API (tests); null: Stripe's own. */
  apiBase: string | null;
  /** How long a visitor's order holds its seats while waiting for payment. */
  holdMinutes: number;
}

/** A PostgreSQL server, reached directly or through a transaction pooler, with read replicas or not. */
export class ConfigError extends Error {}

/** Parses the environment; every problem is named in one line, each with its variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = configSchema.safeParse(present);
  // Every problem at once, so a deployment is fixed in one go.
  const problems = parsed.success
    ? []
    : [...new Map(parsed.error.issues.map((i) => [String(i.path[0]), i.message])).entries()].map(
        ([name, message]) => `${name} ${message}`,
      );
  const admin = [present.MUSEUM_ADMIN_USER, present.MUSEUM_ADMIN_PASSWORD];
  if ((admin[0] === undefined) !== (admin[1] === undefined)) {
    const [missing, other] =
      admin[0] === undefined
        ? ['MUSEUM_ADMIN_USER', 'MUSEUM_ADMIN_PASSWORD']
        : ['MUSEUM_ADMIN_PASSWORD', 'MUSEUM_ADMIN_USER'];
    problems.push(`${missing} must be set together with ${other}`);
  }
  if (parsed.success && parsed.data.HTTP_HEADERS_TIMEOUT_MS > parsed.data.HTTP_REQUEST_TIMEOUT_MS)
    problems.push('HTTP_HEADERS_TIMEOUT_MS must not be larger than HTTP_REQUEST_TIMEOUT_MS');
  let trustedDocuments: TrustedDocuments | null = null;
  if (parsed.success && parsed.data.MUSEUM_TRUSTED_DOCUMENTS !== undefined) {
    try {
      trustedDocuments = loadTrustedDocuments(parsed.data.MUSEUM_TRUSTED_DOCUMENTS);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (parsed.success && parsed.data.MUSEUM_TRUSTED_DOCUMENTS_ONLY && !parsed.data.MUSEUM_TRUSTED_DOCUMENTS)
    problems.push('MUSEUM_TRUSTED_DOCUMENTS_ONLY needs MUSEUM_TRUSTED_DOCUMENTS, the manifest');
  if (parsed.success && !parsed.data.DATABASE_URL?.startsWith('postgres')) {
    for (const name of ['DATABASE_DIRECT_URL', 'DATABASE_READ_URLS'] as const)
      if (parsed.data[name] !== undefined)
        problems.push(
          `${name} needs DATABASE_URL=postgres://… (the embedded database has neither pooler nor replicas)`,
        );
  }
  if (
    parsed.success &&
    parsed.data.DATABASE_DIRECT_URL &&
    parsed.data.DATABASE_DIRECT_URL === parsed.data.DATABASE_URL
  )
    problems.push(
      'DATABASE_DIRECT_URL must name the PostgreSQL server itself, not the pooler that DATABASE_URL names (unset it when there is no pooler)',
    );
  if (parsed.success && parsed.data.SMTP_URL && !parsed.data.MAIL_FROM)
    problems.push('MAIL_FROM must be set with SMTP_URL (the address mails are sent from)');
  if (parsed.success && parsed.data.MUSEUM_PAYMENTS === 'stripe')
    for (const name of STRIPE_SETTINGS)
      if (parsed.data[name] === undefined) problems.push(`${name} must be set with MUSEUM_PAYMENTS=stripe`);
  if (problems.length > 0 || !parsed.success)
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  const e = parsed.data;
  const database: Config['database'] =
    e.DATABASE_URL === undefined
      ? { kind: 'embedded', dataDir: e.MUSEUM_DATA_DIR }
      : e.DATABASE_URL === 'memory://'
        ? { kind: 'embedded', dataDir: null, cacheDir: e.MUSEUM_DATA_DIR }
        : {
            kind: 'postgres',
            url: e.DATABASE_URL,
            directUrl: e.DATABASE_DIRECT_URL ?? null,
            readUrls: e.DATABASE_READ_URLS ?? [],
            replicaMaxLagSeconds: e.DATABASE_REPLICA_MAX_LAG,
            // At least a second: start-up's own statements (the migrations' bookkeeping, the LISTEN check) run
            // on the same connections, and no real deadline is shorter.
            statementTimeoutMs: Math.max(e.REQUEST_TIMEOUT_MS, 1_000),
          };
  return {
    port: e.PORT,
    host: e.HOST,
    database,
    seedDemoEvents: database.kind === 'embedded' && database.dataDir !== null,
    timeZone: e.MUSEUM_TIMEZONE,
    admin:
      e.MUSEUM_ADMIN_USER && e.MUSEUM_ADMIN_PASSWORD
        ? { name: e.MUSEUM_ADMIN_USER, password: e.MUSEUM_ADMIN_PASSWORD }
        : null,
    dailyCapacity: e.MUSEUM_DAILY_CAPACITY ?? null,
    currency: e.MUSEUM_CURRENCY,
    entryGraceMinutes: e.MUSEUM_ENTRY_GRACE_MINUTES,
    logLevel: e.LOG_LEVEL,
    introspection: e.GRAPHQL_INTROSPECTION,
    graphiql: e.GRAPHIQL,
    corsOrigins: e.CORS_ORIGINS ?? [],
    trustProxy: e.MUSEUM_TRUST_PROXY ?? e.TRUST_PROXY ?? NO_PROXY,
    maxConcurrentRequests: e.MAX_CONCURRENT_REQUESTS,
    maxConcurrentRequestsPerClient: e.MAX_CONCURRENT_REQUESTS_PER_CLIENT,
    headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    operationTimeoutMs: e.REQUEST_TIMEOUT_MS,
    keepAliveMs: e.MUSEUM_SSE_KEEPALIVE_MS,
    metrics: e.MUSEUM_METRICS === 'on',
    dbConnectTimeoutSeconds: e.MUSEUM_DB_CONNECT_TIMEOUT,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
    trustedDocuments,
    trustedDocumentsOnly: e.MUSEUM_TRUSTED_DOCUMENTS_ONLY,
    webhooks: {
      retrySchedule: e.MUSEUM_WEBHOOK_RETRY_SCHEDULE ?? DEFAULT_RETRY_SCHEDULE,
      allowPrivate: e.MUSEUM_WEBHOOK_ALLOW_PRIVATE,
      worker: e.MUSEUM_WEBHOOK_WORKER === 'on',
    },
    liveSubscriptionsPerAccount: e.MUSEUM_LIVE_SUBSCRIPTIONS_PER_ACCOUNT,
    websocketsPerClient: e.MUSEUM_WEBSOCKETS_PER_CLIENT,
    payments:
      e.MUSEUM_PAYMENTS === 'stripe'
        ? {
            mode: 'stripe',
            secretKey: e.STRIPE_SECRET_KEY!,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET!,
            successUrl: e.STRIPE_SUCCESS_URL!,
            cancelUrl: e.STRIPE_CANCEL_URL!,
            apiBase: e.STRIPE_API_BASE ?? null,
            holdMinutes: e.ORDER_HOLD_MINUTES,
          }
        : { mode: 'none' },
    mail: {
      museumName: e.MUSEUM_NAME,
      from: e.MAIL_FROM ?? 'tickets@museum.invalid',
      transport: e.SMTP_URL
        ? { kind: 'smtp', url: e.SMTP_URL }
        : { kind: 'files', dir: join(e.MUSEUM_DATA_DIR, 'mail') },
      retrySchedule: e.MAIL_RETRY_SCHEDULE ?? DEFAULT_MAIL_RETRY_SCHEDULE,
      ratePerSecond: e.MAIL_RATE_PER_SECOND,
    },
    retentionDays: e.MUSEUM_RETENTION_DAYS,
    privacyKey: e.MUSEUM_PRIVACY_KEY ?? null,
  };
}
