// The operations of the OpenAPI document (src/openapi/document.ts), one per route: its parameters, request body,
// responses and the refusals it can give, from the compiled route (its GraphQL document against the schema),
// the rules that validate its variables, and what route-docs.ts says of it.

import {
  type FieldNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isNonNullType,
  Kind,
  type NamedTypeNode,
  type SelectionSetNode,
  typeFromAST,
} from 'graphql';
import { z } from 'zod';
import { ERROR_KINDS, type ErrorKind } from '../common/errors.ts';
import { MAX_PAGE_SIZE } from '../common/pagination.ts';
import { pothosOptionsOf } from '../graphql/builder.ts';
import { BODY_VARIABLE, type CompiledRoute } from '../rest/compiled-routes.ts';
import { ANSWER_LIMITS } from './answer-limits.ts';
import { type Components, HEADER_VALUE } from './components.ts';
import { PARAMETERS } from './prose.ts';
import type { RouteDocs } from './route-docs.ts';
import {
  fromZod,
  inputTypeSchema,
  type Json,
  outputSchema,
  requestBodySchema,
  withoutNull,
} from './schemas.ts';

/** Names of object types in the reference, where they differ from the GraphQL type's. */
const OBJECT_NAMES: Record<string, string> = { MuseumDay: 'MuseumDailyHours' };

interface CompiledOperation {
  field: GraphQLField<unknown, unknown>;
  selection: SelectionSetNode | undefined;
  variableTypes: Map<string, GraphQLInputType>;
  /** What the response body is: the root field, or the `items` of a page (`paged: 'items'`). */
  bodyType: GraphQLOutputType;
  selectsTotal: boolean;
}

/** What the document needs of a compiled route beyond what serving it does. */
function describe(schema: GraphQLSchema, route: CompiledRoute): CompiledOperation {
  const { operation, field, rootSelection } = route;
  const variableTypes = new Map<string, GraphQLInputType>();
  for (const definition of operation.variableDefinitions ?? []) {
    const argument = rootSelection.arguments?.find(
      (a) => a.value.kind === Kind.VARIABLE && a.value.name.value === definition.variable.name.value,
    );
    const fieldArgument = field.args.find((a: GraphQLArgument) => a.name === argument?.name.value);
    variableTypes.set(
      definition.variable.name.value,
      fieldArgument?.type ?? (typeFromAST(schema, definition.type as NamedTypeNode) as GraphQLInputType),
    );
  }
  const selectsTotalIn = (selection: SelectionSetNode | undefined) =>
    (selection?.selections ?? []).some(
      (s) => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === 'total',
    );
  if (route.paged === 'items') {
    const items = rootSelection.selectionSet?.selections.find(
      (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === 'items',
    );
    const itemsField = (getNamedType(field.type) as GraphQLObjectType).getFields().items;
    if (!items || !itemsField) throw new Error(`Route ${route.operationId}: a page must select items`);
    return {
      field,
      selection: items.selectionSet,
      variableTypes,
      bodyType: itemsField.type,
      selectsTotal: selectsTotalIn(rootSelection.selectionSet),
    };
  }
  // The entity-tag field travels as `ETag`, not in the body.
  const selection =
    route.etag && rootSelection.selectionSet
      ? {
          ...rootSelection.selectionSet,
          selections: rootSelection.selectionSet.selections.filter(
            (s) => !(s.kind === Kind.FIELD && s.name.value === route.etag),
          ),
        }
      : rootSelection.selectionSet;
  return {
    field,
    selection,
    variableTypes,
    bodyType: field.type,
    selectsTotal: selectsTotalIn(operation.selectionSet),
  };
}

export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const pathParameterNames = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function scopesOf(field: GraphQLField<unknown, unknown>): Record<string, unknown> | undefined {
  const scopes = pothosOptionsOf(field).authScopes;
  return scopes && typeof scopes === 'object' ? (scopes as Record<string, unknown>) : undefined;
}

/** The path, query and conditional-request parameters of an operation. */
function parametersOf(route: CompiledRoute, compiled: CompiledOperation, components: Components): Json[] {
  const { field, variableTypes } = compiled;
  const parameters: Json[] = [];
  const argsValidator = pothosOptionsOf(field).validate;
  const argsSchema = argsValidator instanceof z.ZodType ? fromZod(argsValidator) : { properties: {} };
  const parameter = (name: string, location: 'path' | 'query') => {
    const type = variableTypes.get(name);
    const fromRules = (argsSchema.properties as Record<string, Json> | undefined)?.[name];
    const schemaOf = withoutNull(fromRules ?? (type ? inputTypeSchema(type) : { type: 'string' }));
    // What the argument's GraphQL type enforces first (a scalar's format and length) completes the rules.
    if (fromRules && type)
      for (const [key, value] of Object.entries(inputTypeSchema(type))) schemaOf[key] ??= value;
    if (
      schemaOf.type === 'integer' &&
      (schemaOf.maximum === undefined || Number(schemaOf.maximum) > 2 ** 31 - 1)
    ) {
      schemaOf.maximum = 2 ** 31 - 1; // GraphQL Int
    }
    // A query parameter the operation cannot do without is its own, not the reference's optional one.
    const required = location === 'path' || isNonNullType(type);
    const known = location === 'query' && required ? undefined : PARAMETERS[name];
    const argument = field.args.find((a) => a.name === name);
    const definition: Json = {
      name,
      in: location,
      description: known?.description ?? argument?.description ?? name,
      ...(required ? { required: true } : {}),
      schema: schemaOf,
      ...(known ? { example: known.example } : {}),
    };
    return known ? components.addParameter(known.component, definition) : definition;
  };
  for (const name of pathParameterNames(route.path)) parameters.push(parameter(name, 'path'));
  for (const name of route.query ?? []) parameters.push(parameter(name, 'query'));
  if (route.method === 'GET') parameters.push(components.conditional('If-None-Match'));
  for (const [variable, header] of Object.entries(route.headers ?? {})) {
    if (header === 'if-match') parameters.push(components.conditional('If-Match'));
    else
      parameters.push({
        name: header.replace(
          /(^|-)([a-z])/g,
          (_all, dash: string, letter: string) => dash + letter.toUpperCase(),
        ),
        in: 'header',
        description: field.args.find((a) => a.name === variable)?.description ?? header,
        ...(isNonNullType(variableTypes.get(variable)) ? { required: true } : {}),
        schema: HEADER_VALUE,
      });
  }
  return parameters;
}

/** The request body: the input type's schema (named after it, without `Input`) and the request examples. */
function requestBodyOf(inputType: GraphQLInputType, docs: RouteDocs, components: Components): Json {
  const named = getNamedType(inputType);
  const body = components.addSchema(
    named.name.replace(/Input$/, ''),
    requestBodySchema(inputType),
    named.name,
  );
  return {
    required: true,
    content: { 'application/json': { schema: body, ...components.addExamples(docs.examples?.request) } },
  };
}

/** The success response: its schema (named as the reference names it), headers and examples. */
function successOf(
  route: CompiledRoute,
  compiled: CompiledOperation,
  docs: RouteDocs,
  components: Components,
): Json {
  const { addHeader, addSchema, withEdgeHeaders } = components;
  if (route.status === 204) return { description: 'Success - no content.', headers: withEdgeHeaders() };
  const description = route.status === 201 ? 'Created.' : 'Success.';
  const produced = route.produces?.contentType;
  if (produced) {
    // A body other than JSON (a rendered image): described by its media type only.
    const name = docs.responseSchema ?? `${capitalized(route.operationId)}Body`;
    return {
      description,
      headers: withEdgeHeaders({ ETag: addHeader('ETag') }),
      content: {
        [produced]: {
          schema: addSchema(name, { type: 'string', contentMediaType: produced }, `${name}_`),
        },
      },
    };
  }
  const shape = outputSchema(compiled.bodyType, compiled.selection, ANSWER_LIMITS);
  // A page holds at most the largest `limit`; a root field's own list, what answer-limits.ts says.
  if (shape.type === 'array')
    Object.assign(
      shape,
      route.paged ? { maxItems: MAX_PAGE_SIZE } : ANSWER_LIMITS.Query?.[compiled.field.name],
    );
  let responseSchema: Json;
  if (shape.type === 'array' && (shape.items as Json).type === 'object') {
    const itemType = getNamedType(compiled.bodyType).name;
    const itemName = OBJECT_NAMES[itemType] ?? itemType;
    const item = addSchema(itemName, shape.items as Json, `${itemName}${capitalized(route.operationId)}`);
    const collection = docs.responseSchema ?? `${itemName}Collection`;
    responseSchema = addSchema(
      collection,
      { ...shape, items: item },
      `${collection}${capitalized(route.operationId)}`,
    );
  } else if (shape.type === 'object') {
    const name =
      docs.responseSchema ??
      OBJECT_NAMES[getNamedType(compiled.bodyType).name] ??
      getNamedType(compiled.bodyType).name;
    responseSchema = addSchema(name, shape, `${name}${capitalized(route.operationId)}`);
  } else {
    responseSchema = shape;
  }
  const headers: Record<string, Json> = {};
  if (route.location) headers.Location = addHeader('Location');
  if (route.paged) headers.Link = addHeader('Link');
  if (route.paged && compiled.selectsTotal) headers['X-Total-Count'] = addHeader('X-Total-Count');
  if (route.method === 'GET' || route.etag) headers.ETag = addHeader('ETag');
  // Another media type the same answer comes in, chosen by Accept (a report as CSV).
  const alternative = route.alternative?.contentType.split(';')[0];
  return {
    description,
    headers: withEdgeHeaders(headers),
    content: {
      'application/json': { schema: responseSchema, ...components.addExamples(docs.examples?.response) },
      ...(alternative
        ? { [alternative]: { schema: { type: 'string', contentMediaType: alternative } } }
        : {}),
    },
  };
}

/** The refusals an operation can give: what every route of its kind may (auth, input, body), and its own. */
function refusalsOf(route: CompiledRoute, field: GraphQLField<unknown, unknown>, docs: RouteDocs) {
  const scopes = scopesOf(field);
  const kinds: ErrorKind[] = ['validation'];
  if (scopes) kinds.push('unauthenticated');
  // 403 where visitors are refused (staff-only operations, check-ins). A gate account is refused everything but
  // check-ins and ticket reads; the document's prose says so once rather than on every operation.
  if (scopes && !('authenticated' in scopes || 'visitor' in scopes)) kinds.push('forbidden');
  if (route.notFound || pathParameterNames(route.path).length > 0) kinds.push('notFound');
  kinds.push(...(docs.problems ?? []));
  if (docs.idempotencyKey) kinds.push('unprocessable'); // the key again with another body
  if (route.body) kinds.push('payloadTooLarge', 'unsupportedMediaType');
  // Failed logins, and requests in progress from one client (src/http/listener.ts), whatever the operation.
  kinds.push('tooManyRequests', 'internal', 'unavailable');
  return [...new Set(kinds)].sort((a, b) => ERROR_KINDS[a].status - ERROR_KINDS[b].status);
}

/** The OpenAPI operation of a compiled route; what it needs of the shared components is added to them. */
export function operationOf(
  schema: GraphQLSchema,
  route: CompiledRoute,
  docs: RouteDocs,
  components: Components,
): Json {
  const compiled = describe(schema, route);
  const { field, variableTypes } = compiled;
  const parameters = parametersOf(route, compiled, components);
  if (docs.idempotencyKey) parameters.push(components.idempotencyKey());
  const operation: Json = {
    summary: docs.summary,
    ...(docs.description
      ? { description: docs.description }
      : field.description
        ? { description: field.description }
        : {}),
    operationId: route.operationId,
    tags: docs.tags,
  };
  if (parameters.length > 0) operation.parameters = parameters;
  const inputType = route.body ? variableTypes.get(BODY_VARIABLE) : undefined;
  if (inputType) operation.requestBody = requestBodyOf(inputType, docs, components);
  // An operation open to anyone (its own check instead, such as a signature): no credentials.
  if (!scopesOf(field)) operation.security = [];

  const responses: Record<string, Json> = {
    [String(route.status)]: successOf(route, compiled, docs, components),
  };
  if (route.method === 'GET')
    responses['304'] = {
      description: 'Not modified: `If-None-Match` named the current representation; no body.',
      headers: components.withEdgeHeaders({ ETag: components.addHeader('ETag') }),
    };
  for (const kind of refusalsOf(route, field, docs)) {
    responses[String(ERROR_KINDS[kind].status)] = components.addProblem(kind);
  }
  operation.responses = responses;
  return operation;
}
