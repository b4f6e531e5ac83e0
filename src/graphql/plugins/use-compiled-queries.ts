import type { Plugin } from '@envelop/core';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  type DocumentNode,
  type ExecutionArgs,
  execute,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLOutputType,
  type GraphQLSchema,
  GraphQLString,
  isListType,
  isNonNullType,
  Kind,
  subscribe,
  visit,
} from 'graphql';
import type { OperationContext } from './operation-context.ts';

/**
 * The schema queries are compiled against: the same, but for the fields that answer one of `plainScalars`
 * (string scalars whose serialization is the identity: Date, UUID, …), which answer String there.
 * graphql-jit copies a String as the resolver returns it (`disableLeafSerialization`) but serializes a custom
 * scalar through a call handed what it would need for an error at each leaf; its `customSerializers` swap
 * the function, not the call. On GET /museum-hours (30 such leaves) that was ~45 µs of Node's CPU a request
 * (~12 %) in an A/B, and 6 of the 59 KB it allocated. Arguments and variables keep their scalars, so their
 * values are still checked; documents are validated against the real schema, and one that reads the schema
 * itself (introspection) is compiled against it.
 */
export function compilationSchema(schema: GraphQLSchema, plainScalars: ReadonlySet<string>): GraphQLSchema {
  const plain = (type: GraphQLOutputType): GraphQLOutputType => {
    if (isNonNullType(type)) return new GraphQLNonNull(plain(type.ofType));
    if (isListType(type)) return new GraphQLList(plain(type.ofType));
    return 'name' in type && plainScalars.has(type.name) ? GraphQLString : type;
  };
  return mapSchema(schema, {
    [MapperKind.COMPOSITE_FIELD]: (field) => ({ ...field, type: plain(field.type) }),
  });
}

/** What a document is, as far as compiling it goes; worked out once per (cached) document. */
interface DocumentTraits {
  /** It asks for incremental delivery (@defer or @stream somewhere). */
  incremental: boolean;
  /**
   * It reads the schema (`__schema`, `__type`, or Federation's `_service`, its SDL): compiled, it must see the
   * scalars as they are.
   */
  introspects: boolean;
  /** It holds one operation: the compiled query is cached by the document alone, whatever its operationName. */
  oneOperation: boolean;
  /** Runs so far: a query is compiled on its second run, when compiling starts to pay. */
  runs: number;
}

const INCREMENTAL_DIRECTIVES = new Set(['defer', 'stream']);
const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '_service']);

function traitsOf(document: DocumentNode): DocumentTraits {
  const traits = { incremental: false, introspects: false, oneOperation: false, runs: 0 };
  visit(document, {
    Directive(node) {
      if (INCREMENTAL_DIRECTIVES.has(node.name.value)) traits.incremental = true;
    },
    Field(node) {
      if (INTROSPECTION_FIELDS.has(node.name.value)) traits.introspects = true;
    },
  });
  traits.oneOperation =
    document.definitions.filter((node) => node.kind === Kind.OPERATION_DEFINITION).length === 1;
  return traits;
}

/**
 * The execution function: graphql-jit (envelop's `useGraphQlJit`) for a query that repeats, @defer and
 * @stream left to yoga's executor (graphql-tools', which delivers the parts) where the transport delivers
 * parts, graphql-js for everything else. A compiled query is the only run of its operation: its errors are
 * the answer. Mutations and subscriptions are never compiled: a compiled mutation kept each run's objects
 * alive through V8's young collections (purchases promoted ~4.3 MB a scavenge against ~0.2 MB interpreted,
 * `--trace-gc-nvp`; every read's ratio fell with the collector's work). graphql-jit copies the built-in
 * scalars and enum values as resolvers return them (`disableLeafSerialization`), and the plain string
 * scalars too (`compilationSchema`): ours return them exactly as serialization would make them
 * (test/graphql-over-http.test.ts compares every field of the graph compiled and interpreted).
 */
export function useCompiledQueries(
  schema: GraphQLSchema,
  plainScalars: ReadonlySet<string>,
): [Plugin<OperationContext>, Plugin, Plugin] {
  // Made on the first compilation: an instance that never compiles does not pay for it (~3 ms).
  let plainSchema: GraphQLSchema | undefined;
  const traits = new WeakMap<DocumentNode, DocumentTraits>();
  const traitsFor = (document: DocumentNode) => {
    let found = traits.get(document);
    if (!found) {
      found = traitsOf(document);
      traits.set(document, found);
    }
    return found;
  };
  /**
   * The runs on which graphql-jit compiles (a document's second; later runs find it compiled, by the
   * document, whatever schema they carry), to be handed the schema it compiles against.
   */
  const compilingRuns = new WeakSet<ExecutionArgs>();
  const compiles = (args: ExecutionArgs) => {
    const document = traitsFor(args.document);
    const context = args.contextValue as OperationContext;
    if (!document.oneOperation || (document.incremental && context.incremental)) return false;
    if (context.operation.operation !== 'query') return false;
    if (++document.runs < 2) return false;
    if (document.runs === 2 && !document.introspects) compilingRuns.add(args);
    return true;
  };
  return [
    {
      onExecute({ args, setExecuteFn }) {
        if (!(args.contextValue.incremental && traitsFor(args.document).incremental)) setExecuteFn(execute);
      },
      onSubscribe({ setSubscribeFn }) {
        setSubscribeFn(subscribe);
      },
    },
    // A query graphql-jit cannot compile is answered with what it says, as any error (never logged to the console).
    useGraphQlJit({ disableLeafSerialization: true }, { enableIf: compiles, onError: () => {} }),
    {
      onExecute({ args, executeFn, setExecuteFn }) {
        if (!compilingRuns.has(args)) return;
        plainSchema ??= compilationSchema(schema, plainScalars);
        const compiledAgainst = plainSchema;
        setExecuteFn((run) => executeFn({ ...run, schema: compiledAgainst }));
      },
    },
  ];
}
