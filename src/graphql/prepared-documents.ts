import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  type DocumentNode,
  GraphQLError,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLOutputType,
  type GraphQLSchema,
  GraphQLString,
  isListType,
  isNonNullType,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  validate,
  visit,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { shapeLiteralErrors } from './input-errors.ts';
import { limitRules, withoutSuggestions } from './query-limits.ts';

/**
 * graphql-jit serializes each built-in scalar and enum value through a call that is handed, every time, the
 * error locations and path it would report (two arrays per leaf: ~1.4 KB per event of a list, a sixth of
 * what a list request allocates). Our resolvers return those leaves exactly as serialization would make them
 * (strings, numbers, booleans, enum names equal to their values), so they are copied as they are; custom
 * scalars (Date, UUID, …) are still serialized. test/graphql-over-http.test.ts compares every field of the
 * graph compiled and interpreted.
 */
const COMPILER_OPTIONS = { disableLeafSerialization: true };

/**
 * The schema graphql-jit compiles against: the same, but for the fields that answer one of `plainScalars`
 * (string scalars whose serialization is the identity: Date, UUID, …), which answer String there. graphql-jit
 * copies a String as it is (COMPILER_OPTIONS), where it serialized each such leaf through three calls and
 * two arrays made for an error it could not raise (6 of the 59 KB GET /museum-hours allocated). Arguments
 * and variables keep their scalars: their values are still checked; documents are validated against `schema`,
 * and one that reads the schema itself (introspection) is compiled against it.
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

/** How many documents are kept prepared, the least recently used forgotten first. */
const PREPARED_DOCUMENTS = 1_000;
/** Longer documents are prepared each time: the clients that repeat a query send a short one. */
const PREPARED_LENGTH = 16 * 1024;

/** A document as it was prepared: parsed once, validated once (limits included), compiled once it repeats. */
export interface PreparedDocument {
  document: DocumentNode;
  /** Validation errors (the query limits among them); empty when the document is valid. */
  errors: readonly GraphQLError[];
  /** Runs so far, per operation name: a query is compiled on its second run, when compiling starts to pay. */
  runs: Map<string, number>;
  compiled: Map<string, CompiledQuery | null>;
  /** Whether it asks for incremental delivery (@defer or @stream somewhere). */
  incremental: boolean;
  /** Whether it reads the schema (`__schema`, `__type`): compiled, it must see the scalars as they are. */
  introspects: boolean;
  /** When it was last asked for (a count of preparations): the least recently used goes first. */
  used: number;
}

export interface PreparedDocuments {
  /** The document prepared from its text; throws a syntax error (400, a spec error). */
  prepare(source: string): PreparedDocument;
  /** The preparation a document came from, if it came from `prepare`. */
  preparedFrom(document: DocumentNode): PreparedDocument | undefined;
  /** The operation compiled by graphql-jit from its second run on (a query), else null: graphql-js runs it. */
  compiled(
    prepared: PreparedDocument,
    operation: OperationDefinitionNode,
    name: string | undefined,
  ): CompiledQuery | null;
}

const INCREMENTAL_DIRECTIVES = new Set(['defer', 'stream']);
const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

/** What a document asks for beyond plain execution: incremental delivery, the schema itself. */
function asksFor(document: DocumentNode): { incremental: boolean; introspects: boolean } {
  const found = { incremental: false, introspects: false };
  visit(document, {
    Directive(node) {
      if (INCREMENTAL_DIRECTIVES.has(node.name.value)) found.incremental = true;
    },
    Field(node) {
      if (INTROSPECTION_FIELDS.has(node.name.value)) found.introspects = true;
    },
  });
  return found;
}

/**
 * The one cache of prepared documents, for every operation whatever brought it (a REST route, a GraphQL POST
 * or GET, a trusted document, a subscription), by the document's text: its parse, its validation (with the
 * query limits, which are validation rules; errors in the shapes clients read) and, for a query run more than
 * once, its graphql-jit compilation. Mutations and subscriptions are never compiled: a compiled mutation
 * kept each run's objects alive through V8's young collections (purchases promoted ~4.3 MB a scavenge
 * against ~0.2 MB interpreted, `--trace-gc-nvp`; every read's ratio fell with the collector's work).
 */
export function createPreparedDocuments(
  schema: GraphQLSchema,
  options: { introspection: boolean; plainScalars: ReadonlySet<string> },
): PreparedDocuments {
  // Made on the first compilation: an instance that never compiles does not pay for it (~3 ms).
  let plainSchema: GraphQLSchema | undefined;
  const compiledAgainst = (entry: PreparedDocument) => {
    if (entry.introspects) return schema;
    plainSchema ??= compilationSchema(schema, options.plainScalars);
    return plainSchema;
  };
  const rules = [...specifiedRules, ...limitRules(options.introspection)];
  const prepared = new Map<string, PreparedDocument>();
  const byDocument = new WeakMap<DocumentNode, PreparedDocument>();
  let clock = 0;

  function validated(document: DocumentNode): readonly GraphQLError[] {
    const errors = validate(schema, document, rules);
    if (errors.length === 0) return errors;
    const shaped = shapeLiteralErrors(document, options.introspection ? errors : withoutSuggestions(errors));
    for (const error of shaped) {
      // A document that breaks a rule is the request's fault: 400, or 200 for application/json (a spec error).
      const extensions = error.extensions as Record<string, unknown>;
      extensions.code ??= 'GRAPHQL_VALIDATION_FAILED';
      extensions.http ??= { spec: true, status: 400 };
    }
    return shaped;
  }

  return {
    prepare(source) {
      const found = prepared.get(source);
      if (found) {
        // A hit is stamped, not moved to the Map's end: deleting and setting again on every request made
        // the Map's table grow and be copied, and V8's young-generation collector keeps what a long-lived
        // Map has held alive until a full collection.
        found.used = ++clock;
        return found;
      }
      let document: DocumentNode;
      try {
        document = parse(source);
      } catch (error) {
        if (error instanceof GraphQLError) {
          const extensions = error.extensions as Record<string, unknown>;
          extensions.code ??= 'GRAPHQL_PARSE_FAILED';
          extensions.http ??= { spec: true, status: 400 };
        }
        throw error;
      }
      const entry: PreparedDocument = {
        document,
        errors: validated(document),
        runs: new Map(),
        compiled: new Map(),
        ...asksFor(document),
        used: ++clock,
      };
      byDocument.set(document, entry);
      // Invalid documents are not kept: they are answered once, not served again and again.
      if (entry.errors.length === 0 && source.length <= PREPARED_LENGTH) {
        if (prepared.size >= PREPARED_DOCUMENTS) prepared.delete(leastRecentlyUsed(prepared));
        prepared.set(source, entry);
      }
      return entry;
    },

    preparedFrom: (document) => byDocument.get(document),

    compiled(entry, operation, name = '') {
      let query = entry.compiled.get(name);
      if (query !== undefined) return query;
      const runs = (entry.runs.get(name) ?? 0) + 1;
      entry.runs.set(name, runs);
      if (runs < 2) return null;
      const compiled =
        operation.operation === 'query'
          ? compileQuery(compiledAgainst(entry), entry.document, name || undefined, COMPILER_OPTIONS)
          : null;
      query = compiled && isCompiledQuery(compiled) ? compiled : null;
      entry.compiled.set(name, query);
      return query;
    },
  };
}

/** The key of the entry asked for longest ago: a scan, made only when a new document finds the cache full. */
function leastRecentlyUsed(prepared: Map<string, PreparedDocument>): string {
  let oldest: string | undefined;
  let oldestUse = Number.POSITIVE_INFINITY;
  for (const [source, entry] of prepared) {
    if (entry.used < oldestUse) {
      oldest = source;
      oldestUse = entry.used;
    }
  }
  return oldest!;
}
