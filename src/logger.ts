import { createRequire } from 'node:module';
import pino from 'pino';
import type { Config } from './config.ts';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** The one line each request leaves (src/http/pipeline.ts), at level info. */
  request(fields: RequestLine): void;
  /** Writes out what is still buffered (before the process exits). */
  flush(): void;
}

export interface RequestLine {
  method: string;
  route: string;
  status: number;
  durationMs: number;
  requestId: string;
  account: string | undefined;
}

/**
 * pino, writing one JSON object per line to stderr (asynchronously and in batches: a log line never waits
 * for the terminal or the disk; `flush` before exiting). In a terminal, and when the dev dependency pino-pretty is installed, lines are
 * pretty-printed instead. Callers pass no credentials, headers or e-mail addresses; the message comes first
 * and the fields after it, the one shape every call site uses.
 */
export function createLogger(level: Config['logLevel'], destination?: pino.DestinationStream): Logger {
  const stream = destination ?? defaultDestination();
  const base = pino(
    {
      level,
      messageKey: 'message',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
  const requestsLogged = base.isLevelEnabled('info');
  return {
    debug: (message, fields) => base.debug(fields ?? {}, message),
    info: (message, fields) => base.info(fields ?? {}, message),
    warn: (message, fields) => base.warn(fields ?? {}, message),
    error: (message, fields) => base.error(fields ?? {}, message),
    // Written here, in pino's format, to pino's own stream: through pino's generic path (a key loop over
    // objects of every shape the service logs) the line cost ~6 µs more a request under load.
    request: requestsLogged
      ? ({ method, route, status, durationMs, requestId, account }) =>
          stream.write(
            `{"level":"info","time":"${new Date().toISOString()}","method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${status},"durationMs":${durationMs},"requestId":${JSON.stringify(requestId)}${account === undefined ? '' : `,"account":${JSON.stringify(account)}`},"message":"request"}\n`,
          )
      : () => {},
    flush: () => base.flush(),
  };
}

function defaultDestination(): pino.DestinationStream {
  if (process.stderr.isTTY) {
    try {
      const pretty = createRequire(import.meta.url)('pino-pretty') as (
        options: object,
      ) => pino.DestinationStream;
      return pretty({ destination: 2, messageKey: 'message', translateTime: 'SYS:HH:MM:ss.l', sync: true });
    } catch {
      // pino-pretty is a dev dependency: production installs log JSON.
    }
  }
  // Lines are gathered into writes of 4 KiB (one system call for dozens of request lines under load),
  // and what has gathered is written out every 100 ms, so a quiet server's lines still show at once.
  const destination = pino.destination({ dest: 2, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), 100).unref();
  return destination;
}
