import { createRequire } from 'node:module';
import pino from 'pino';
import { withoutAddresses } from './common/text.ts';

/** The levels LOG_LEVEL may name (src/environment.ts). */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

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
 * and the fields after it, the one shape every call site uses. Should an address come anyway (an account
 * name may be one, an error may repeat its input), it is written as `<address>`: in the message and in every
 * string of the fields, and in the request line's account.
 */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  const { stream, gathersLines } = destination
    ? { stream: destination, gathersLines: false }
    : defaultDestination();
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

  // On stderr, request lines are gathered and handed to the stream 32 at a time: sonic-boom measures the
  // byte length of its whole pending buffer on every write (~2 µs a line under load). Any other line writes
  // the gathered ones first, so lines stay in order.
  let gathered = '';
  let gatheredCount = 0;
  const writeGathered = () => {
    if (gatheredCount === 0) return;
    stream.write(gathered);
    gathered = '';
    gatheredCount = 0;
  };
  // What has gathered is written out every 100 ms, so a quiet server's lines still show at once.
  if (gathersLines)
    setInterval(() => {
      writeGathered();
      base.flush();
    }, 100).unref();
  const line = (level: 'debug' | 'info' | 'warn' | 'error') => {
    if (!base.isLevelEnabled(level)) return () => {};
    const write = base[level];
    return (message: string, fields?: Record<string, unknown>) => {
      writeGathered();
      write.call(base, fields ? (withoutAddressesIn(fields) as object) : {}, withoutAddresses(message));
    };
  };

  return {
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    // Written here, in pino's format, to pino's own stream: through pino's generic path (a key loop over
    // objects of every shape the service logs) the line cost ~6 µs more a request under load.
    request: requestsLogged
      ? ({ method, route, status, durationMs, requestId, account }) => {
          const text = `{"level":"info","time":"${isoTime(Date.now())}","method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${status},"durationMs":${durationText(durationMs)},"requestId":${JSON.stringify(requestId)}${account === undefined ? '' : `,"account":${JSON.stringify(withoutAddresses(account))}`},"message":"request"}\n`;
          if (!gathersLines) return void stream.write(text);
          gathered += text;
          if (++gatheredCount === 32) writeGathered();
        }
      : () => {},
    flush: () => {
      writeGathered();
      base.flush();
    },
  };
}

/** `value` with `withoutAddresses` applied to every string in it, through arrays and plain objects. */
function withoutAddressesIn(value: unknown): unknown {
  if (typeof value === 'string') return withoutAddresses(value);
  if (Array.isArray(value)) return value.map(withoutAddressesIn);
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype)
    return value;
  const copy: Record<string, unknown> = {};
  for (const key in value) copy[key] = withoutAddressesIn((value as Record<string, unknown>)[key]);
  return copy;
}

/**
 * `now` (milliseconds since the epoch) as `Date#toISOString` writes it. The part up to the second is formatted
 * once a second and the milliseconds appended: `toISOString` on every line cost a few µs under load.
 */
export function isoTime(now: number): string {
  const milliseconds = now % 1000;
  if (now - milliseconds !== isoSecond) {
    isoSecond = now - milliseconds;
    isoPrefix = new Date(isoSecond).toISOString().slice(0, 20);
  }
  return `${isoPrefix}${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`;
}
let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * A duration as JSON, rounded to a tenth of a millisecond: what `String(Math.round(ms * 10) / 10)` gives, built
 * from integers (the shortest form of a fraction is V8's slow path, ~1 µs a line under load).
 */
export function durationText(milliseconds: number): string {
  const count = Math.round(milliseconds * 10);
  const rest = count % 10;
  const whole = (count - rest) / 10;
  return rest === 0 ? `${whole}` : `${whole}.${rest}`;
}

function defaultDestination(): { stream: pino.DestinationStream; gathersLines: boolean } {
  if (process.stderr.isTTY) {
    try {
      const pretty = createRequire(import.meta.url)('pino-pretty') as (
        options: object,
      ) => pino.DestinationStream;
      const stream = pretty({
        destination: 2,
        messageKey: 'message',
        translateTime: 'SYS:HH:MM:ss.l',
        sync: true,
      });
      return { stream, gathersLines: false };
    } catch {
      // pino-pretty is a dev dependency: production installs log JSON.
    }
  }
  // Lines are gathered into writes of 4 KiB (one system call for dozens of request lines under load);
  // createLogger writes them out every 100 ms.
  const stream = pino.destination({ dest: 2, sync: false, minLength: 4096 });
  return { stream, gathersLines: true };
}
