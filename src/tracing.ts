import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { withoutAddresses } from './common/text.ts';
import { wrapClientQuery } from './db/pg-client.ts';

/**
 * OpenTelemetry tracing, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then spans for each HTTP request,
 * each GraphQL operation (REST routes run as operations) and each SQL statement are exported over
 * OTLP/HTTP (JSON) to `<endpoint>/v1/traces`, with the standard semantic attributes. Off, nothing is
 * loaded and the request path does not even ask: `enabled` stays false.
 */
export const tracing = { enabled: false };

const TRACER = 'museum-api';
export const tracer = () => trace.getTracer(TRACER);

export async function startTracing(endpoint: string | undefined): Promise<(() => Promise<void>) | null> {
  if (!endpoint) return null;
  const [
    { TracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { AsyncLocalStorageContextManager },
    resources,
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? TRACER }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }),
        scheduledDelayMillis: 1_000,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  traceSqlStatements();
  tracing.enabled = true;
  return () => provider.shutdown();
}

/** Runs `work` inside a new span (a child of the active one), ended when it settles. */
export async function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      // A driver's message may repeat a value (`invalid input syntax for type uuid: "…"`): no address is kept.
      const { name, message, stack, code } = error as Error & { code?: string };
      span.recordException({
        name,
        code,
        message: message && withoutAddresses(message),
        stack: stack && withoutAddresses(stack),
      });
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Every statement the `pg` driver sends — MikroORM's through Kysely and db/sql.ts's prepared ones — in a
 * client span (`db.system.name`, `db.namespace`, `db.operation.name`, `db.query.text`, server address).
 * The driver is wrapped (src/db/pg-client.ts) because it is loaded as CommonJS, before any instrumentation
 * hook could be.
 */
function traceSqlStatements() {
  wrapClientQuery<ClientFields>(
    (query) =>
      function tracedQuery(this: ClientFields, ...args: unknown[]) {
        const [first] = args;
        const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
        // Callback style (pg-pool's internals) and cursors are passed through untraced.
        const submittable = typeof (first as { submit?: unknown } | undefined)?.submit === 'function';
        if (text === undefined || submittable || typeof args.at(-1) === 'function')
          return query.apply(this, args);
        const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
        const attributes: Attributes = {
          'db.system.name': 'postgresql',
          'db.operation.name': operation,
          // MikroORM writes its values into the SQL; quoted literals are masked, so no value leaves.
          'db.query.text': text.replace(/'(?:[^']|'')*'/g, "'?'"),
          ...(this.database ? { 'db.namespace': this.database } : {}),
          ...(this.host ? { 'server.address': this.host } : {}),
          ...(this.port ? { 'server.port': this.port } : {}),
        };
        // Behind a transaction pooler statements go unnamed; src/db/sql.ts still says which one it is.
        const name =
          (first as { name?: string; statement?: string }).name ??
          (first as { statement?: string }).statement ??
          operation;
        return inSpan(name, SpanKind.CLIENT, attributes, () => query.apply(this, args) as Promise<unknown>);
      },
  );
}

interface ClientFields {
  database?: string;
  host?: string;
  port?: number;
}
