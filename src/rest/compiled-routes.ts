import {
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  parse,
  validate,
} from 'graphql';
import type { Route } from './route.ts';

type Segment = { literal: string } | { parameter: string };

/** A route as it serves requests and the OpenAPI document: compiled once, at start-up. */
export interface CompiledRoute extends Route {
  segments: Segment[];
  parsed: DocumentNode;
  operation: OperationDefinitionNode;
  /** The root field the document selects: its name, its selection and its definition in the schema. */
  rootField: string;
  rootSelection: FieldNode;
  field: GraphQLField<unknown, unknown>;
  /** Each query parameter, and whether its variable is an `Int` (else the text is passed as it is). */
  queryTypes: Record<string, 'int' | 'string'>;
  /** The path as the OpenAPI document writes it, `/special-events/{eventId}`: the metrics' route label. */
  template: string;
}

/** The GraphQL variable a route's JSON body becomes (`body: true`). */
export const BODY_VARIABLE = 'input';

/** Parses and validates every route's document against the schema, once, at start-up. */
export function compileRoutes(schema: GraphQLSchema, routes: Route[]): CompiledRoute[] {
  return routes.map((route) => {
    const parsed = parse(route.document);
    const invalid = validate(schema, parsed);
    if (invalid.length > 0) throw new Error(`Route ${route.operationId}: ${invalid[0]!.message}`);
    const operation = parsed.definitions[0];
    if (operation?.kind !== 'OperationDefinition')
      throw new Error(`Route ${route.operationId} must hold one operation`);
    const first = operation.selectionSet.selections[0];
    if (first?.kind !== 'Field') throw new Error(`Route ${route.operationId} must select one root field`);
    const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
    const field = root?.getFields()[first.name.value];
    if (!field) throw new Error(`Route ${route.operationId}: unknown root field ${first.name.value}`);
    const segments = route.path
      .split('/')
      .slice(1)
      .map((part): Segment => (part.startsWith(':') ? { parameter: part.slice(1) } : { literal: part }));
    const template = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const queryTypes = Object.fromEntries(
      (route.query ?? []).map((name) => {
        const definition = operation.variableDefinitions?.find((d) => d.variable.name.value === name);
        if (!definition) throw new Error(`Route ${route.operationId}: no variable $${name}`);
        const named = definition.type.kind === Kind.NON_NULL_TYPE ? definition.type.type : definition.type;
        return [
          name,
          named.kind === Kind.NAMED_TYPE && named.name.value === 'Int' ? 'int' : 'string',
        ] as const;
      }),
    );
    return {
      ...route,
      segments,
      parsed,
      operation,
      rootField: first.name.value,
      rootSelection: first,
      field,
      queryTypes,
      template,
    };
  });
}

/** The route's path parameters when `parts` (a path split at `/`, without the leading empty part) fit it. */
function matchPath(route: CompiledRoute, parts: string[]): Record<string, string> | null {
  const { segments } = route;
  if (segments.length !== parts.length) return null;
  let params: Record<string, string> | null = null;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if ('literal' in segment) {
      if (segment.literal !== parts[i]) return null;
    } else {
      if (parts[i] === '') return null;
      params ??= {};
      params[segment.parameter] = parts[i]!;
    }
  }
  return params ?? {};
}

/** The routes whose path fits a request's, whatever their method, with the path's parameters. */
export function routeMatcher(
  compiled: CompiledRoute[],
): (pathname: string) => { route: CompiledRoute; params: Record<string, string> }[] {
  const byFirstSegment = new Map<string, CompiledRoute[]>();
  for (const route of compiled) {
    const head = route.segments[0];
    const first = head && 'literal' in head ? head.literal : '';
    byFirstSegment.set(first, [...(byFirstSegment.get(first) ?? []), route]);
  }
  return (pathname) => {
    const parts = pathname.split('/').slice(1);
    const found: { route: CompiledRoute; params: Record<string, string> }[] = [];
    for (const route of byFirstSegment.get(parts[0] ?? '') ?? []) {
      const params = matchPath(route, parts);
      if (params) found.push({ route, params });
    }
    return found;
  };
}
