import type { useOpenTelemetry as UseOpenTelemetry } from '@envelop/opentelemetry';
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { withoutAddresses } from './common/text.ts';
import { aroundStatements } from './db/pg-client.ts';

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
    { useOpenTelemetry },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/resources'),
    import('@envelop/opentelemetry'),
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
  // Neither resolvers (a span per field) nor variables or results (a buyer's address) are traced.
  spansPlugin = () =>
    useOpenTelemetry(
      { resolvers: false, variables: false, result: false },
      provider,
      SpanKind.INTERNAL,
      {},
      TRACER,
    );
  tracing.enabled = true;
  return () => provider.shutdown();
}

type OperationSpans = ReturnType<typeof UseOpenTelemetry>;
let spansPlugin: (() => OperationSpans) | undefined;

/**
 * While tracing is on, envelop's OpenTelemetry plugin (`@envelop/opentelemetry`), for the engine's plugins:
 * a span per GraphQL operation, whatever its transport (a REST route's too), named like
 * `query.getSpecialEvent`, the child of its request's span and the parent of its statements'. A
 * subscription's span lasts as long as the subscription, a @defer query's until its last part. Off, null.
 */
export const operationSpans = (): OperationSpans | null =>
  tracing.enabled && spansPlugin ? spansPlugin() : null;

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
 * client span (`db.system.name`, `db.namespace`, `db.operation.name`, `db.query.text`, server address), put
 * around each by the service's pg client (src/db/pg-client.ts).
 */
function traceSqlStatements() {
  aroundStatements((client, statement, run) => {
    const operation = /^\s*(\w+)/.exec(statement.text)?.[1]?.toUpperCase() ?? 'SQL';
    const attributes: Attributes = {
      'db.system.name': 'postgresql',
      'db.operation.name': operation,
      // MikroORM writes its values into the SQL; quoted literals are masked, so no value leaves.
      'db.query.text': statement.text.replace(/'(?:[^']|'')*'/g, "'?'"),
      ...(client.database ? { 'db.namespace': client.database } : {}),
      ...(client.host ? { 'server.address': client.host } : {}),
      ...(client.port ? { 'server.port': client.port } : {}),
    };
    // Behind a transaction pooler statements go unnamed; src/db/sql.ts still says which one it is.
    const name = statement.name ?? statement.statement ?? operation;
    return inSpan(name, SpanKind.CLIENT, attributes, run);
  });
}
