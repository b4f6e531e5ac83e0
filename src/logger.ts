import type { Config } from './config.ts';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** One JSON object per line on stderr. Callers pass no credentials, headers or e-mail addresses. */
export function createLogger(
  level: Config['logLevel'],
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const threshold = LEVELS[level];
  const log =
    (at: keyof typeof LEVELS) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (LEVELS[at] < threshold) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields })}\n`);
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}
