// What a test process records for the leak scan (test/support/leak-scan.ts reads it when the run ends): the
// lines of every museum's logger at debug level, its spans (tracing on, through the OTLP exporter the server
// uses, to a receiver in this process), its metrics when it closes, the webhook bodies receivers got, and
// what spawned servers wrote (also at debug level, and traced to the same receiver). Off (nothing recorded,
// nothing changed) unless test/support/leak-scan-setup.ts turned it on; usable outside vitest (bench, soak).
import { appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
// pg's query is wrapped by src/db/sql.ts as it is imported, and by tracing as it starts; tracing must be the
// outer one (it passes a call with a callback through untraced), as in the server, which imports the app first.
import '../../src/db/sql.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { startTracing, tracing } from '../../src/tracing.ts';

type Kind = 'logs' | 'spans' | 'metrics' | 'webhooks' | 'servers';

let dir: string | null = null;
const pending = new Map<Kind, string[]>();
let pendingBytes = 0;

/** Records into `into` from now on (one file per kind for this process). */
export function startRecording(into: string): void {
  dir = into;
  process.once('exit', flushRecords);
}

export const recording = () => dir !== null;

/** Keeps `text` (one or more lines) for the scan. */
export function record(kind: Kind, text: string): void {
  if (dir === null) return;
  const lines = pending.get(kind) ?? [];
  pending.set(kind, lines);
  lines.push(text.endsWith('\n') ? text : `${text}\n`);
  pendingBytes += text.length;
  if (pendingBytes > 1 << 20) flushRecords();
}

/** Writes out what is kept (synchronously: also at the process's exit). */
export function flushRecords(): void {
  if (dir === null) return;
  for (const [kind, lines] of pending)
    if (lines.length > 0) appendFileSync(join(dir, `${kind}-${process.pid}.ndjson`), lines.join(''));
  pending.clear();
  pendingBytes = 0;
}

/**
 * `logger` and, while recording, a debug-level logger whose lines (as src/logger.ts writes them) are
 * recorded: every line a museum writes at any level reaches the scan, and the test still reads its own.
 */
export function recordedLogger(logger: Logger): Logger {
  if (dir === null) return logger;
  const recorded = createLogger('debug', { write: (line: string) => record('logs', line) });
  return {
    debug: (message, fields) => {
      logger.debug(message, fields);
      recorded.debug(message, fields);
    },
    info: (message, fields) => {
      logger.info(message, fields);
      recorded.info(message, fields);
    },
    warn: (message, fields) => {
      logger.warn(message, fields);
      recorded.warn(message, fields);
    },
    error: (message, fields) => {
      logger.error(message, fields);
      recorded.error(message, fields);
    },
    request: (line) => {
      logger.request(line);
      recorded.request(line);
    },
    flush: () => logger.flush(),
  };
}

/** Records what `app` serves at /metrics (within a second: a museum whose database is gone may not answer). */
export async function recordMetrics(fetch: (url: string) => Promise<Response>): Promise<void> {
  if (dir === null) return;
  const timeout = new Promise<null>((resolve) => setTimeout(resolve, 1_000, null).unref());
  const text = await Promise.race([
    fetch('/metrics').then(
      (response) => (response.status === 200 ? response.text() : null),
      () => null,
    ),
    timeout,
  ]);
  if (text) record('metrics', text);
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  name: string;
  attributes?: { key: string; value: OtlpValue }[];
  events?: { name: string; attributes?: { key: string; value: OtlpValue }[] }[];
}

const plainValue = (value: OtlpValue): unknown =>
  value.arrayValue ? value.arrayValue.values.map(plainValue) : Object.values(value)[0];
const attributesOf = (attributes: OtlpSpan['attributes'] = []) =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, plainValue(value)]));

let receiver: Server | null = null;
let receiverUrl: string | null = null;
let stopInProcessTracing: (() => Promise<void>) | null = null;

/**
 * A stand-in for an OpenTelemetry collector (OTLP/HTTP JSON, as src/tracing.ts exports) that records each
 * span it gets as one line (its name, attributes and events), for this process's museums and the servers
 * it spawns; then tracing on in this process, as OTEL_EXPORTER_OTLP_ENDPOINT turns it on in a server.
 */
export async function startRecordedTracing(): Promise<void> {
  if (dir === null || receiver) return;
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const exported = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
        };
        for (const resource of exported.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              record(
                'spans',
                JSON.stringify({
                  name: span.name,
                  attributes: attributesOf(span.attributes),
                  events: (span.events ?? []).map((event) => ({
                    name: event.name,
                    attributes: attributesOf(event.attributes),
                  })),
                }),
              );
      } catch {
        record('spans', Buffer.concat(chunks).toString('utf8'));
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  stopInProcessTracing = await startTracing(receiverUrl);
}

/**
 * Ends this process's tracing, its spans exported: for a test that turns tracing on and off itself
 * (test/tracing-same-answers.test.ts). Servers it spawns afterwards are still traced.
 */
export async function stopRecordedTracing(): Promise<void> {
  const stop = stopInProcessTracing;
  stopInProcessTracing = null;
  if (!stop) return;
  await stop();
  trace.disable();
  context.disable();
  tracing.enabled = false;
}

/** The end of the test file: spans exported, the receiver closed, every record written. */
export async function finishRecording(): Promise<void> {
  await stopRecordedTracing();
  const closing = receiver;
  receiver = null;
  if (closing) {
    const closed = new Promise<void>((resolve) => closing.close(() => resolve()));
    closing.closeAllConnections();
    await closed;
  }
  flushRecords();
}

/** The settings a spawned server records under: debug-level lines, spans to this process's receiver. */
export function recordedServerEnv({ untraced = false } = {}): Record<string, string> {
  if (dir === null) return {};
  return {
    LOG_LEVEL: 'debug',
    ...(receiverUrl && !untraced ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl } : {}),
  };
}
