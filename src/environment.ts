import { z } from 'zod';
import { isTwoDecimalCurrency } from './common/money.ts';
import { DEFAULT_RETENTION_DAYS } from './privacy/privacy.rules.ts';
import { parseTrustedProxies, type TrustedProxies } from './protocol/client-address.ts';

// The environment variables of the service, as zod reads them at start-up (docs/operations.md lists them);
// config.ts makes the configuration of them.

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

/** `postgres://a/db,postgres://b/db`: one or more PostgreSQL URLs. */
const databaseUrlList = z
  .string()
  .transform((list) =>
    list
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url !== ''),
  )
  .refine((urls) => urls.length > 0 && urls.every((url) => /^postgres(ql)?:\/\/.+/.test(url)), {
    message: 'must be comma-separated postgres:// connection URLs',
  });

const wholeNumber = z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number');
const positiveInt = wholeNumber.positive('must be 1 or more');
const upTo = (max: number) => positiveInt.max(max, `must be at most ${max}`);

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

/** `false`, a number of proxy hops, or the proxies' addresses and CIDR ranges (src/protocol/client-address.ts). */
const trustedProxies = z.string().transform((value, context): TrustedProxies => {
  const parsed = parseTrustedProxies(value.trim());
  if ('error' in parsed) {
    context.addIssue({
      code: 'custom',
      message: `${parsed.error}: use false, a number of proxy hops (1: one proxy in front), or comma-separated proxy addresses or CIDR ranges such as 10.0.0.0/8`,
    });
    return z.NEVER;
  }
  return parsed;
});

/** `5,300,1800`: seconds before each retry of a failed webhook delivery. */
const retrySchedule = z
  .string()
  .transform((list) => list.split(',').map((item) => item.trim()))
  .refine((items) => items.every((item) => /^\d+(\.\d+)?$/.test(item) && Number(item) <= 7 * 86_400), {
    message: 'must be comma-separated seconds before each retry, such as 5,300,1800 (each at most 604800)',
  })
  .transform((items) => items.map(Number));

/** Every setting of the service, read once from the environment at start-up. */
export const configSchema = z.object({
  PORT: wholeNumber
    .min(0, 'must be a port number, 0 to 65535')
    .max(65535, 'must be a port number, 0 to 65535')
    .default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: databaseUrl.optional(),
  DATABASE_DIRECT_URL: z
    .string()
    .refine((url) => /^postgres(ql)?:\/\/.+/.test(url), { message: 'must be a postgres:// connection URL' })
    .optional(),
  DATABASE_READ_URLS: databaseUrlList.optional(),
  DATABASE_REPLICA_MAX_LAG: upTo(3_600).default(30),
  MUSEUM_DATA_DIR: z.string().min(1).default('./.data'),
  MUSEUM_TIMEZONE: ianaTimeZone.default('UTC'),
  MUSEUM_ADMIN_USER: z.string().min(1).max(64).optional(),
  MUSEUM_ADMIN_PASSWORD: z.string().min(8).max(1024).optional(),
  MUSEUM_DAILY_CAPACITY: positiveInt.optional(),
  MUSEUM_CURRENCY: z
    .string()
    .refine(
      isTwoDecimalCurrency,
      'must be an ISO 4217 code of a currency with 2 decimals, such as EUR or USD',
    )
    .default('EUR'),
  MUSEUM_ENTRY_GRACE_MINUTES: wholeNumber
    .min(0, 'must be 0 to 240 minutes')
    .max(240, 'must be 0 to 240 minutes')
    .default(15),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  GRAPHQL_INTROSPECTION: flag.default(true),
  GRAPHIQL: flag.default(true),
  CORS_ORIGINS: originList.optional(),
  MUSEUM_TRUST_PROXY: trustedProxies.optional(),
  /** The earlier name of MUSEUM_TRUST_PROXY, still read. */
  TRUST_PROXY: trustedProxies.optional(),
  MAX_CONCURRENT_REQUESTS: positiveInt.default(256),
  MAX_CONCURRENT_REQUESTS_PER_CLIENT: positiveInt.default(32),
  HTTP_HEADERS_TIMEOUT_MS: upTo(600_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: upTo(3_600_000).default(30_000),
  MUSEUM_METRICS: z.enum(['on', 'off']).default('on'),
  MUSEUM_DB_CONNECT_TIMEOUT: upTo(3_600).default(30),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  REQUEST_TIMEOUT_MS: upTo(600_000).default(15_000),
  MUSEUM_TRUSTED_DOCUMENTS: z.string().min(1).optional(),
  MUSEUM_TRUSTED_DOCUMENTS_ONLY: flag.default(false),
  MUSEUM_WEBHOOK_RETRY_SCHEDULE: retrySchedule.optional(),
  MUSEUM_WEBHOOK_ALLOW_PRIVATE: flag.default(false),
  MUSEUM_WEBHOOK_WORKER: z.enum(['on', 'off']).default('on'),
  MUSEUM_LIVE_SUBSCRIPTIONS_PER_ACCOUNT: upTo(1_000).default(5),
  MUSEUM_SSE_KEEPALIVE_MS: upTo(600_000).min(100, 'must be at least 100').default(12_000),
  MUSEUM_WEBSOCKETS_PER_CLIENT: upTo(10_000).default(20),
  MUSEUM_PAYMENTS: z.enum(['none', 'stripe'], { error: 'must be none or stripe' }).default('none'),
  ORDER_HOLD_MINUTES: wholeNumber
    .min(1, 'must be 1 to 1440 minutes')
    .max(1440, 'must be 1 to 1440 minutes')
    .default(30),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_/, 'must be a Stripe secret key (sk_… or rk_…)')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_/, 'must be a webhook signing secret (whsec_…)')
    .optional(),
  STRIPE_SUCCESS_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  STRIPE_CANCEL_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  MUSEUM_NAME: z.string().trim().min(1).max(100, 'must be at most 100 characters').default('The Museum'),
  SMTP_URL: z
    .url({
      protocol: /^smtps?$/,
      error: 'must be an smtp:// or smtps:// URL, such as smtp://user:pass@host:587',
    })
    .optional(),
  MAIL_FROM: z.email('must be an e-mail address, such as tickets@museum.example').optional(),
  MAIL_RETRY_SCHEDULE: retrySchedule.optional(),
  MAIL_RATE_PER_SECOND: wholeNumber
    .min(1, 'must be 1 to 1000 mails a second')
    .max(1000, 'must be 1 to 1000 mails a second')
    .default(10),
  MUSEUM_RETENTION_DAYS: wholeNumber
    .min(1, 'must be 1 to 36500 days')
    .max(36_500, 'must be 1 to 36500 days')
    .default(DEFAULT_RETENTION_DAYS),
  MUSEUM_PRIVACY_KEY: z.string().min(32, 'must be at least 32 characters (a random secret)').optional(),
  STRIPE_API_BASE: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:12111' })
    .optional(),
});

/** What Stripe needs; every one of them is required with MUSEUM_PAYMENTS=stripe. */
export const STRIPE_SETTINGS = [
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_SUCCESS_URL',
  'STRIPE_CANCEL_URL',
] as const;

export type EnvConfig = z.infer<typeof configSchema>;
