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
  };
}
