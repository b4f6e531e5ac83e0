import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  type DocumentNode,
  GraphQLError,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  Lexer,
  NoSchemaIntrospectionCustomRule,
  Source,
  TokenKind,
  type ValidationContext,
  type ValidationRule,
  validate,
} from 'graphql';
import { costError, executionCost, queryCostRule } from './query-cost.ts';

/**
 * What one GraphQL operation may ask for. The REST routes' fixed documents use a fraction of each (a test
 * checks); GraphiQL's introspection query is exempt from depth and cost (armor ignores `__schema`).
 */
export const QUERY_LIMITS = {
  /** Nesting of selections, fragments flattened. The schema's deepest real path is 3. */
  depth: 8,
  /** Aliased fields per operation. */
  aliases: 15,
  /** Directives per operation. */
  directives: 10,
  /** Lexical tokens of the document: bounds parsing work before anything else runs. */
  tokens: 2_000,
  /** 2 per object field, 1 per value, times the items of every page it sits in (query-cost.ts). */
  cost: 2_000,
} as const;

export type QueryLimit = keyof typeof QUERY_LIMITS;

export const QUERY_LIMIT_CODE = 'QUERY_LIMIT_EXCEEDED';

/** A refusal: 400 for every client (not only graphql-response+json ones), with the limit that was hit. */
export function limitError(limit: QueryLimit, message: string): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: QUERY_LIMIT_CODE, limit, http: { status: 400, spec: false } },
  });
}

const report =
  (limit: QueryLimit) =>
  (context: ValidationContext | null, error: GraphQLError): void => {
    context?.reportError(limitError(limit, error.message.replace(/^Syntax Error: /, '')));
  };

const common = (limit: QueryLimit) => ({
  exposeLimits: true,
  propagateOnRejection: false,
  onReject: [report(limit)],
});

const LIMIT_RULES: ValidationRule[] = [
  maxDepthRule({
    n: QUERY_LIMITS.depth,
    ignoreIntrospection: true,
    flattenFragments: true,
    ...common('depth'),
  }),
  maxAliasesRule({ n: QUERY_LIMITS.aliases, ...common('aliases') }),
  maxDirectivesRule({ n: QUERY_LIMITS.directives, ...common('directives') }),
] as unknown as ValidationRule[];
LIMIT_RULES.push(
  queryCostRule((context, cost) => {
    if (cost > QUERY_LIMITS.cost) report('cost')(context, costError(QUERY_LIMITS.cost, cost));
  }),
);

/**
 * The cost limit, counted again with the operation's variables (`_entities`' representations, which validation
 * counts as one): the refusal of an operation over it, else null.
 */
export function costRefusal(
  info: Pick<GraphQLResolveInfo, 'schema' | 'operation' | 'fragments' | 'variableValues'>,
): GraphQLError | null {
  const cost = executionCost(info.schema, info.operation, info.fragments, info.variableValues);
  return cost > QUERY_LIMITS.cost ? limitError('cost', costError(QUERY_LIMITS.cost, cost).message) : null;
}

/** Whether the document has more lexical tokens than the limit; lexing stops there (or at a syntax error). */
function tooManyTokens(query: string): boolean {
  const lexer = new Lexer(new Source(query));
  try {
    for (let count = 0; lexer.advance().kind !== TokenKind.EOF; count++) {
      if (count >= QUERY_LIMITS.tokens) return true;
    }
  } catch {
    // A syntax error: the parser reports it.
  }
  return false;
}

/** What a document measures against each limit (for tests and for choosing the limits). */
export function measureQuery(schema: GraphQLSchema, document: DocumentNode): Record<QueryLimit, number> {
  const measured: Record<QueryLimit, number> = { depth: 0, aliases: 0, directives: 0, tokens: 0, cost: 0 };
  const record = (limit: QueryLimit) => ({
    onAccept: [
      (_context: unknown, details: { n: number }) => {
        measured[limit] = Math.max(measured[limit], details.n);
      },
    ],
    onReject: [],
    propagateOnRejection: false,
  });
  validate(schema, document, [
    maxDepthRule({ n: Infinity, ignoreIntrospection: true, flattenFragments: true, ...record('depth') }),
    maxAliasesRule({ n: Infinity, ...record('aliases') }),
    maxDirectivesRule({ n: Infinity, ...record('directives') }),
    queryCostRule((_context, cost) => {
      measured.cost = Math.max(measured.cost, cost);
    }),
  ] as unknown as ValidationRule[]);
  const lexer = new Lexer(document.loc!.source);
  while (lexer.advance().kind !== TokenKind.EOF) measured.tokens++;
  return measured;
}

const SUGGESTION = / Did you mean .*\?$/;

/** How many documents within the token limit are remembered, oldest forgotten first. */
const COUNTED_DOCUMENTS = 1_000;

/**
 * The token limit, checked before parsing (a parse error would be answered 200 to application/json
 * clients): the refusal for a document with too many tokens, else null. Documents already counted and found
 * within the limit are remembered: clients send the same few again and again.
 */
export function createTokenCheck(): (query: string) => GraphQLError | null {
  const withinLimit = new Set<string>();
  return (query) => {
    if (withinLimit.has(query)) return null;
    if (tooManyTokens(query)) return limitError('tokens', `Token limit of ${QUERY_LIMITS.tokens} exceeded.`);
    if (withinLimit.size >= COUNTED_DOCUMENTS) withinLimit.delete(withinLimit.values().next().value!);
    withinLimit.add(query);
    return null;
  };
}

/**
 * The validation rules of GraphQL's abuse limits (graphql-armor's: depth, aliases, directives, cost) and, when
 * introspection is switched off, graphql-js's rule against it. Refusals answer 400.
 */
export const limitRules = (introspection: boolean): ValidationRule[] =>
  introspection ? LIMIT_RULES : [...LIMIT_RULES, NoSchemaIntrospectionCustomRule];

/** Without introspection, "Did you mean …?" hints are removed, so the schema cannot be guessed field by field. */
export function withoutSuggestions(errors: readonly GraphQLError[]): readonly GraphQLError[] {
  if (!errors.some((error) => SUGGESTION.test(error.message))) return errors;
  return errors.map((error) =>
    SUGGESTION.test(error.message)
      ? new GraphQLError(error.message.replace(SUGGESTION, ''), {
          nodes: error.nodes,
          source: error.source,
          positions: error.positions,
          extensions: error.extensions,
        })
      : error,
  );
}
