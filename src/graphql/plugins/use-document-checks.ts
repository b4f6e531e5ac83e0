import type { Plugin } from '@envelop/core';
import {
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  specifiedRules,
  type ValidationRule,
  validate,
} from 'graphql';
import { shapeLiteralErrors } from '../input-errors.ts';
import { limitRules, withoutSuggestions } from '../query-limits.ts';

/** A spec error: 400, or 200 for application/json, as GraphQL over HTTP says. */
function markedAsRequestFault(error: GraphQLError, code: string): void {
  const extensions = error.extensions as Record<string, unknown>;
  extensions.code ??= code;
  extensions.http ??= { spec: true, status: 400 };
}

/**
 * What a document is checked for before it runs, over every transport alike: GraphQL's rules and the query
 * limits (graphql-armor's depth, aliases and directives, our cost; introspection when it is off), and the
 * shape of the errors clients read (a code, the request's fault; a literal's errors named by path; no "Did
 * you mean …?" without introspection). Parsing is yoga's, with its cache of documents and syntax errors
 * (src/http/yoga-server.ts), so a cached document is the same object each time, and its validation, done
 * once, is kept here by that object: yoga's own validation cache worked out its key on every request by
 * joining the names of all the rules (2.3 % of the CPU of GET /special-events/{eventId}, profiled), where
 * ours never change.
 */
export function useDocumentChecks(options: { introspection: boolean }): Plugin {
  const rules = [...specifiedRules, ...limitRules(options.introspection)];
  const validated = (schema: GraphQLSchema, document: DocumentNode, added?: readonly ValidationRule[]) =>
    validate(schema, document, added?.length ? [...rules, ...added] : rules);
  const validations = new WeakMap<DocumentNode, Error[]>();
  const shape = (document: DocumentNode, errors: readonly GraphQLError[]) => {
    const answer = [
      ...shapeLiteralErrors(document, options.introspection ? errors : withoutSuggestions(errors)),
    ];
    for (const error of answer) markedAsRequestFault(error, 'GRAPHQL_VALIDATION_FAILED');
    return answer;
  };
  const afterParse = ({ result }: { result: unknown }) => {
    if (result instanceof GraphQLError) markedAsRequestFault(result, 'GRAPHQL_PARSE_FAILED');
  };
  return {
    onParse: () => afterParse,
    onValidate({ params, setResult, setValidationFn }) {
      const { documentAST } = params;
      const known = validations.get(documentAST);
      if (known) {
        setResult(known);
        return;
      }
      setValidationFn(validated as typeof validate);
      return ({ result, setResult }) => {
        // Validation answers GraphQLErrors (a plugin's setResult could answer other errors: left as they are).
        const answer = result.length > 0 ? shape(documentAST, result as GraphQLError[]) : [...result];
        setResult(answer);
        validations.set(documentAST, answer);
      };
    },
  };
}
