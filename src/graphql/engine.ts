import { type GetEnvelopedFn, type Plugin, useMaskedErrors } from '@envelop/core';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  type OperationTypeNode,
} from 'graphql';
import { YogaServer } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { AppDeps, RequestContext } from '../context.ts';
import { releaseRequestCaches } from './builder.ts';
import { createRequestContext } from './context.ts';
import { withoutAddressesShown } from './errors.ts';
import { type Operation, type OperationResult, type RunOperation, requestError } from './operations.ts';
import type { OperationContext } from './plugins/operation-context.ts';
import { useCompiledQueries } from './plugins/use-compiled-queries.ts';
import { useDocumentChecks } from './plugins/use-document-checks.ts';
import { useOperationRules } from './plugins/use-operation-rules.ts';
import { useOperationRun } from './plugins/use-operation-run.ts';
import type { TrustedDocuments } from './trusted-documents.ts';

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

export interface EngineDeps extends EngineOptions {
  /** What every operation's context is made from (src/context.ts). */
  deps: AppDeps;
  /** Refuses a document over the token limit before it is parsed (src/graphql/query-limits.ts). */
  tokenCheck: (query: string) => GraphQLError | null;
  trustedDocuments: TrustedDocuments | null;
}

/** An operation ready to run: its arguments (context made, document checked) and the run itself. */
export interface PreparedOperation {
  args: ExecutionArgs;
  /** Runs it once on the engine (execute, or subscribe), then releases the operation's caches. */
  run(): Promise<OperationResult>;
}

export interface Engine {
  /** The one way to run an operation, whatever brought it; never throws. */
  run: RunOperation;
  /**
   * The operation made ready to run, or the result that refuses it (its parameters, document or caller):
   * for a transport that runs it itself, as graphql-ws does (yoga's graphql-ws recipe).
   */
  prepare(operation: Operation): Promise<PreparedOperation | ExecutionResult>;
  /** Whether trusted documents are served (a `documentId` may stand for a document's text). */
  documentIds: boolean;
}

/** How many documents yoga keeps parsed and validated, the least recently used forgotten first. */
const CACHED_DOCUMENTS = 1_000;
/** Longer documents are parsed each time: the clients that repeat a query send a short one. */
const CACHED_LENGTH = 16 * 1024;

/** Yoga's cache of parsed documents (and of syntax errors), bounded in count and in each document's length. */
function documentCache<T extends DocumentNode | Error>() {
  const cache = new LRUCache<string, T>({ max: CACHED_DOCUMENTS });
  return {
    get: (source: string) => cache.get(source),
    set(source: string, value: T) {
      if (source.length <= CACHED_LENGTH) cache.set(source, value);
    },
  };
}

/**
 * The engine: yoga's enveloped execution with the engine's plugins (`enginePlugins`), and the context every
 * operation runs in, made here from the caller's credentials (src/graphql/context.ts). Yoga is the engine
 * only: its HTTP handler is never used, the one HTTP lane is src/http/'s (docs/decisions.md, "One lane").
 *
 * `run` reads the operation (a trusted document's id made its text; the token limit) and hands it to yoga's
 * enveloped execution, whose plugins apply each rule once for every transport (src/graphql/plugins/): the
 * prepared document (parsed, validated with the limits, compiled from its second run; a REST route's is
 * parsed and validated at start-up, as SOFA's are), the auth gate and the trusted-documents rule, the
 * deadline, span and metric, the error mask. No mutation over GET; the per-request caches are released
 * when it ends. With read replicas, each operation runs in a scope of its own (src/db/replicas.ts).
 */
export function createEngine(options: EngineDeps): Engine {
  const { deps, tokenCheck, trustedDocuments, mask } = options;
  const yoga = new YogaServer<Record<string, unknown>, RequestContext>({
    schema: options.schema,
    plugins: enginePlugins(options),
    // The engine's plugins mask every result (envelop's useMaskedErrors): yoga's would log each error again.
    maskedErrors: false,
    // Each document parsed once; its validation is kept by the engine (src/graphql/plugins/use-document-checks.ts).
    parserAndValidationCache: {
      documentCache: documentCache(),
      errorCache: documentCache(),
      validationCache: false,
    },
    // Yoga's handler, which alone logs, is never used; nothing of it may write outside the service's logger.
    logging: false,
  });
  const getEnveloped = yoga.getEnveloped as unknown as GetEnvelopedFn<OperationContext>;
  const { replicas } = deps.db;

  /** The caller's context: its credentials checked; a mutation's reads all go to the primary. */
  function contextOf(operation: Operation, type: OperationTypeNode) {
    const authenticate = () => createRequestContext(deps, operation.caller, operation.signal);
    const entered = (context: RequestContext) => {
      if (operation.observation) operation.observation.account = context.principal?.name;
      replicas?.enter(context.principal?.name, type !== 'query');
      return context;
    };
    const made = replicas ? replicas.apart(authenticate) : authenticate();
    return made instanceof Promise ? made.then(entered) : entered(made);
  }

  /** The document's text, from the text or a trusted document's id; throws a refusal. */
  function textOf(operation: Operation): string {
    const { query, documentId } = operation;
    if (query !== undefined) return query;
    const document =
      documentId === undefined ? undefined : trustedDocuments?.get(documentId.replace(/^sha256:/, ''));
    if (!document)
      throw requestError(
        'Unknown documentId: it names none of the trusted documents',
        400,
        'PERSISTED_QUERY_NOT_FOUND',
      );
    return document;
  }

  async function prepare(operation: Operation): Promise<PreparedOperation | ExecutionResult> {
    let context: OperationContext | undefined;
    try {
      const { incremental = false, operationName, query } = operation;
      // The service's own document, or a trusted document's (named by its id rather than sent).
      const trusted = operation.document !== undefined || query === undefined;
      const text = operation.document ? undefined : textOf(operation);
      if (text !== undefined) {
        const tooLong = tokenCheck(text);
        if (tooLong) return { errors: [tooLong] };
      }
      const initial = { trustedDocument: trusted, incremental } as OperationContext;
      const engine = getEnveloped(initial);
      const document = operation.document ?? engine.parse(text!);
      const definition = getOperationAST(document, operationName);
      if (!definition)
        throw requestError(
          'Could not determine what operation to execute.',
          400,
          'OPERATION_RESOLUTION_FAILURE',
        );
      if (definition.operation === 'mutation' && operation.method === 'GET')
        throw requestError('Can only perform a mutation operation from a POST request.', 405, 'BAD_REQUEST', {
          Allow: 'POST',
        });
      if (!operation.document) {
        const invalid = engine.validate(engine.schema, document);
        if (invalid.length > 0) return { errors: invalid.map(withoutAddressesShown) };
      }
      // Found once here, for every plugin (src/graphql/plugins/operation-context.ts).
      initial.operation = definition;
      const made = contextOf(operation, definition.operation);
      const built = engine.contextFactory(made instanceof Promise ? await made : made);
      context = built instanceof Promise ? await built : built;
      const args: ExecutionArgs = {
        schema: engine.schema,
        document,
        contextValue: context,
        variableValues: operation.variables ?? {},
        operationName,
      };
      const subscription = definition.operation === 'subscription';
      const running = context;
      return {
        args,
        async run() {
          try {
            return (await (subscription ? engine.subscribe(args) : engine.execute(args))) as OperationResult;
          } catch (error) {
            return refused(error);
          } finally {
            releaseRequestCaches(running);
          }
        },
      };
    } catch (error) {
      if (context) releaseRequestCaches(context);
      return refused(error);
    }
  }

  /** A refusal of the parameters, a syntax error, a failure to build the context: masked like every error. */
  const refused = (error: unknown): ExecutionResult => ({
    errors: [withoutAddressesShown(mask(error) as GraphQLError)],
  });

  async function run(operation: Operation): Promise<OperationResult> {
    const prepared = await prepare(operation);
    return 'run' in prepared ? prepared.run() : prepared;
  }

  return {
    run: replicas ? (operation) => replicas.scope(() => run(operation)) : run,
    prepare,
    documentIds: trustedDocuments !== null,
  };
}
