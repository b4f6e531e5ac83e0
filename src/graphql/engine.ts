import { type Plugin, useMaskedErrors } from '@envelop/core';
import type { GraphQLError, GraphQLSchema } from 'graphql';
import { withoutAddressesShown } from './errors.ts';
import { useCompiledQueries } from './plugins/use-compiled-queries.ts';
import { useDocumentChecks } from './plugins/use-document-checks.ts';
import { useOperationRules } from './plugins/use-operation-rules.ts';
import { useOperationRun } from './plugins/use-operation-run.ts';

/** An envelop plugin, typed by the context it reads (the engine's plugins read an OperationContext). */
// biome-ignore lint/suspicious/noExplicitAny: a library's plugin is typed by its own context, any of them fits.
export type EnginePlugin = Plugin<any>;

export interface EngineOptions {
  /** Whether the schema may be read (GraphiQL): its rules and its errors' hints depend on it. */
  introspection: boolean;
  /** The schema, and its string scalars that serialize as they are (compiled queries copy them). */
  schema: GraphQLSchema;
  plainScalars: ReadonlySet<string>;
  /** With trusted documents only, a visitor may run nothing but them (staff and introspection may). */
  trustedDocumentsOnly: boolean;
  /** An operation still running after this long is answered 503 with Retry-After. */
  timeoutMs: number;
  /** Counts an executed operation in the metrics. */
  record?(name: string | undefined, type: string, seconds: number): void;
  /** The error mask (src/graphql/errors.ts): what a client may see of an error. */
  mask: (error: unknown) => Error;
  /** More plugins, run after the rules and before the run is timed (a maintainer's, a test's). */
  plugins?: EnginePlugin[];
  /** The operation spans (`operationSpans()` of src/tracing.ts), when tracing is on. */
  spans?: EnginePlugin | null;
}

/**
 * The engine's plugins, in their order, for yoga's enveloped execution: every operation passes them,
 * whatever its transport (src/graphql/operations.ts). The document checks come first; the compiled queries
 * choose the execution function and the run wraps whichever was chosen within the deadline, so the run comes
 * after them; envelop's error
 * mask (with addresses taken out of what it shows) applies to every result. The spans come last: an
 * operation's span holds all of its run, and records its errors only as the mask left them.
 */
export function enginePlugins(options: EngineOptions): EnginePlugin[] {
  return [
    useDocumentChecks({ introspection: options.introspection }),
    ...useCompiledQueries(options.schema, options.plainScalars),
    useOperationRules({ trustedDocumentsOnly: options.trustedDocumentsOnly }),
    ...(options.plugins ?? []),
    useOperationRun({ timeoutMs: options.timeoutMs, record: options.record }),
    useMaskedErrors({ maskError: (error) => withoutAddressesShown(options.mask(error) as GraphQLError) }),
    ...(options.spans ? [options.spans] : []),
  ];
}
