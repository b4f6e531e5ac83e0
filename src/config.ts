import { z } from 'zod';

const ianaTimeZone = z.string().refine(
  (zone) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be an IANA time zone name such as Europe/Amsterdam' },
);

const databaseUrl = z.string().refine((url) => url === 'memory://' || /^postgres(ql)?:\/\/.+/.test(url), {
  message: 'must be memory:// or a postgres:// connection URL',
});

const positiveInt = z.coerce.number().int().positive();

const flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** `https://a.example, http://localhost:3000`: exact origins, as browsers send them in `Origin`. */
const originList = z
  .string()
  .transform((list) =>
    list
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
  )
  .refine((origins) => origins.every((origin) => /^https?:\/\/[^/?#\s]+$/.test(origin)), {
    message: 'must be comma-separated origins such as https://app.example.com (scheme, host, optional port)',
  });

/** Every setting of the service, read once from the environment at start-up. */
export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: databaseUrl.optional(),
  MUSEUM_DATA_DIR: z.string().min(1).default('./.data'),
  MUSEUM_TIMEZONE: ianaTimeZone.default('UTC'),
  MUSEUM_ADMIN_USER: z.string().min(1).max(64).optional(),
  MUSEUM_ADMIN_PASSWORD: z.string().min(8).max(1024).optional(),
  MUSEUM_DAILY_CAPACITY: positiveInt.optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  GRAPHQL_INTROSPECTION: flag.default(true),
  GRAPHIQL: flag.default(true),
  CORS_ORIGINS: originList.optional(),
  TRUST_PROXY: flag.default(false),
  MAX_CONCURRENT_REQUESTS: positiveInt.default(256),
  MAX_CONCURRENT_REQUESTS_PER_CLIENT: positiveInt.default(32),
  HTTP_HEADERS_TIMEOUT_MS: positiveInt.max(600_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt.max(3_600_000).default(30_000),
  MUSEUM_METRICS: z.enum(['on', 'off']).default('on'),
  REQUEST_TIMEOUT_MS: positiveInt.max(600_000).default(15_000),
});

export type EnvConfig = z.infer<typeof configSchema>;

export interface Config {
  port: number;
  host: string;
  database: { kind: 'embedded'; dataDir: string | null } | { kind: 'postgres'; url: string };
  /** Demo events are seeded only on a fresh embedded database kept on disk, never on a real server. */
  seedDemoEvents: boolean;
  timeZone: string;
  admin: { name: string; password: string } | null;
  dailyCapacity: number | null;
  logLevel: EnvConfig['LOG_LEVEL'];
  /** GraphQL introspection (and field suggestions in errors); GraphiQL needs it. */
  introspection: boolean;
  graphiql: boolean;
  /** Origins whose browsers get CORS headers; empty: none. */
  corsOrigins: string[];
  /** Take the client address from `X-Forwarded-For` (the proxy's last hop) rather than the connection. */
  trustProxy: boolean;
  maxConcurrentRequests: number;
  maxConcurrentRequestsPerClient: number;
  /** How long a client has to send its request headers, and its whole request, before 408. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** How long one operation may run before it is answered 503. */
  operationTimeoutMs: number;
  /** Prometheus metrics at /metrics (open, as C2 says). */
  metrics: boolean;
}

export class ConfigError extends Error {}

/** Parses the environment; the first problem becomes one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${String(issue.path[0])} ${issue.message}`);
  }
  const e = parsed.data;
  if ((e.MUSEUM_ADMIN_USER === undefined) !== (e.MUSEUM_ADMIN_PASSWORD === undefined)) {
    const missing = e.MUSEUM_ADMIN_USER === undefined ? 'MUSEUM_ADMIN_USER' : 'MUSEUM_ADMIN_PASSWORD';
    throw new ConfigError(
      `Invalid configuration: ${missing} must be set together with ${missing === 'MUSEUM_ADMIN_USER' ? 'MUSEUM_ADMIN_PASSWORD' : 'MUSEUM_ADMIN_USER'}`,
    );
  }
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS)
    throw new ConfigError(
      'Invalid configuration: HTTP_HEADERS_TIMEOUT_MS must not be larger than HTTP_REQUEST_TIMEOUT_MS',
    );
  const database: Config['database'] =
    e.DATABASE_URL === undefined
      ? { kind: 'embedded', dataDir: e.MUSEUM_DATA_DIR }
      : e.DATABASE_URL === 'memory://'
        ? { kind: 'embedded', dataDir: null }
        : { kind: 'postgres', url: e.DATABASE_URL };
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
    logLevel: e.LOG_LEVEL,
    introspection: e.GRAPHQL_INTROSPECTION,
    graphiql: e.GRAPHIQL,
    corsOrigins: e.CORS_ORIGINS ?? [],
    trustProxy: e.TRUST_PROXY,
    maxConcurrentRequests: e.MAX_CONCURRENT_REQUESTS,
    maxConcurrentRequestsPerClient: e.MAX_CONCURRENT_REQUESTS_PER_CLIENT,
    headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    operationTimeoutMs: e.REQUEST_TIMEOUT_MS,
    metrics: e.MUSEUM_METRICS === 'on',
  };
}
