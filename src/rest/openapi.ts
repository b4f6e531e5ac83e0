// The OpenAPI 3.1 document of the REST surface, generated, never written by hand:
// - paths, methods, operationIds, success statuses, prose, examples and extra refusals from the route table
//   (routes.ts, its prose in route-docs.ts), each route compiled once by the same compileRoutes that serves it;
// - request bodies and query parameters from the very zod schemas that validate them (the `validate`
//   option of the GraphQL input type or root field a route executes), as JSON Schema 2020-12, the dialect
//   of OpenAPI 3.1, plus what the GraphQL types themselves enforce (scalar formats, no unknown fields);
// - responses from the GraphQL output type and the fields the route's document selects;
// - error responses from the error table (common/errors.ts) and what a route does (auth, body, path).
// Written here: the document's own prose and the reference's shared parameters (their component names).
// A row added to routes.ts appears without touching this file.

import {
  type FieldNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type NamedTypeNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  typeFromAST,
} from 'graphql';
import { z } from 'zod';
import packageJson from '../../package.json' with { type: 'json' };
import { ERROR_KINDS, type ErrorKind } from '../common/errors.ts';
import { pothosOptionsOf } from '../graphql/builder.ts';
import type { ScalarExtensions } from '../graphql/scalars.ts';
import { schema as graphqlSchema } from '../graphql/schema.ts';
import { BODY_VARIABLE, type CompiledRoute, compileRoutes } from './compiled-routes.ts';
import { problemOf, WWW_AUTHENTICATE } from './problem.ts';
import { type Examples, routeDocs } from './route-docs.ts';
import { type Route, routes as restRoutes } from './routes.ts';
import { OPENAPI_SECURITY_SCHEME } from './security-scheme.ts';

type Json = Record<string, unknown>;

const DESCRIPTION = `Tickets, opening hours and special events of the museum. The REST operations below are those of
the [Redocly Museum API 1.2.1](https://github.com/Redocly/museum-openapi-example); every one is a thin mapping onto
the GraphQL schema served at [/graphql](/graphql) (GraphiQL in a browser), so both share validation,
authentication, pagination and errors.

**Credentials.** Every operation needs HTTP Basic credentials of an account (\`visitor\` or \`staff\`); creating,
changing and deleting events needs \`staff\`. Missing or wrong credentials answer 401 with
\`WWW-Authenticate\`, a known account without the role 403. Credentials are checked before the input, so a
caller without the right learns nothing about it.

**Errors** are [RFC 9457](https://www.rfc-editor.org/rfc/rfc9457) \`application/problem+json\` bodies
(\`Problem\`); a validation failure (400) names every offending field in \`errors\`. A known path with another
method answers 405 with \`Allow\`; an unknown path 404. Request bodies are JSON objects with no unknown or
server-assigned fields.

**Dates** are \`YYYY-MM-DD\` calendar dates that exist; "today" is the museum's time zone. **Text** is any Unicode
text (lengths count code points) but the NUL character and lone surrogates.

**Lists** are paged with \`page\` (≥ 1, default 1) and \`limit\` (1…30, default 10); a page past the end is
\`[]\`. List responses carry an RFC 8288 \`Link\` header (\`first\`, \`prev\`, \`next\`); event lists also
\`X-Total-Count\`.`;

const TAGS: Record<string, string> = {
  Operations: 'Operational information about the museum.',
  Events: 'Special events hosted by the museum.',
  Tickets: 'Museum tickets for general entrance or special events.',
  Webhooks: 'Partners told of new and changed special events instead of polling (staff only).',
};

/** The reference's shared parameters, by the variable they set. Their schemas come from the rules. */
const PARAMETERS: Record<string, { component: string; description: string; example: unknown }> = {
  startDate: {
    component: 'StartDate',
    description: "Starting date to retrieve future operating hours or events from. Defaults to today's date.",
    example: '2030-10-29',
  },
  endDate: {
    component: 'EndDate',
    description:
      'End of a date range to retrieve special events for (inclusive). Defaults to 7 days after `startDate`.',
    example: '2030-11-05',
  },
  page: { component: 'PaginationPage', description: 'Page number to retrieve.', example: 2 },
  limit: { component: 'PaginationLimit', description: 'Number of items per page.', example: 15 },
  eventId: {
    component: 'EventId',
    description: 'Identifier for a special event.',
    example: 'dad4bce8-f5cb-4078-a211-995864315e39',
  },
  subscriptionId: {
    component: 'WebhookSubscriptionId',
    description: 'Identifier for a webhook subscription.',
    example: '5f1c2b0e-8d4a-4f7e-9a51-0c3e7b2d9f64',
  },
  ticketId: {
    component: 'TicketId',
    description: 'Identifier for a ticket to a museum event.',
    example: 'a54a57ca-36f8-421b-a6b4-2e8f26858a4c',
  },
};

/** Names of object types in the reference, where they differ from the GraphQL type's. */
const OBJECT_NAMES: Record<string, string> = { MuseumDay: 'MuseumDailyHours' };

/** JSON Schema of GraphQL's own scalars; the schema's own describe themselves (graphql/scalars.ts). */
const BUILT_IN_SCALARS: Record<string, Json> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
};

const scalarSchema = (scalar: GraphQLNamedType): Json => ({
  ...((scalar.extensions as Partial<ScalarExtensions>).jsonSchema ?? BUILT_IN_SCALARS[scalar.name] ?? {}),
});

/** A header of every webhook message, as Standard Webhooks define it. */
const webhookHeader = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

/**
 * The reference's `publishNewEvent`: what the museum POSTs to each webhook subscription (src/webhooks), with
 * the signature headers the reference leaves unsaid.
 */
const PUBLISH_NEW_EVENT = {
  post: {
    summary: 'New special event added',
    description:
      'Publish details of a new or updated event: the event exactly as `GET /special-events/{eventId}` answers it, POSTed to every webhook subscription and signed as [Standard Webhooks](https://www.standardwebhooks.com) define. Any 2xx within 10 s is delivered; anything else is retried with backoff (`MUSEUM_WEBHOOK_RETRY_SCHEDULE`), with the same `webhook-id`: delivery is at least once, so dedupe by it.',
    operationId: 'publishNewEvent',
    tags: ['Events'],
    security: [],
    parameters: [
      webhookHeader(
        'webhook-id',
        'The message: the same on every attempt.',
        'msg_6c1f7a4e-2f0b-4c8e-9d3a-5b7e1f2a9c40',
      ),
      webhookHeader('webhook-timestamp', 'Unix seconds when this attempt was signed.', '1919510400'),
      webhookHeader(
        'webhook-signature',
        '`v1,` and the base64 HMAC-SHA256, keyed with the subscription secret, of `{webhook-id}.{webhook-timestamp}.{body}`.',
        'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
      ),
    ],
    requestBody: {
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/SpecialEvent' },
          examples: { default_example: { $ref: '#/components/examples/GetSpecialEventResponseExample' } },
        },
      },
    },
    responses: { '202': { description: 'Data accepted.' } },
  },
};

const problemSchema = z
  .object({
    type: z
      .string()
      .meta({ description: 'The kind of problem, a URI reference.', example: '/problems/validation' }),
    title: z.string().meta({ description: 'Short summary of the kind.', example: 'Validation failed' }),
    status: z.int().min(100).max(599).meta({ description: 'The HTTP status code.', example: 400 }),
    detail: z.string().meta({ description: 'What went wrong with this request.' }),
    errors: z
      .array(
        z.object({
          path: z.string().meta({
            description:
              'The offending field as a client writes it (`dates[1]`, `price`, `page`); empty for the whole body.',
          }),
          message: z.string(),
        }),
      )
      .optional()
      .meta({ description: 'Validation failures only: every offending field.' }),
  })
  .meta({ description: 'RFC 9457 problem details.' });

const HEADERS: Record<string, Json> = {
  Link: {
    description:
      'RFC 8288 links: `first`, `prev` (a page with items), `next`, and `last` where the total is counted.',
    schema: { type: 'string' },
    example: '</special-events?page=2&limit=10>; rel="next", </special-events?page=1&limit=10>; rel="first"',
  },
  'X-Total-Count': {
    description: 'How many items all the pages hold together.',
    schema: { type: 'integer', minimum: 0 },
    example: 12,
  },
  Location: {
    description: 'Where the created resource lives.',
    schema: { type: 'string', format: 'uri-reference' },
  },
  'WWW-Authenticate': {
    description: 'The authentication scheme to use.',
    schema: { type: 'string' },
    example: WWW_AUTHENTICATE,
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0 },
  },
  ETag: {
    description:
      'A strong entity tag of this representation (an event: its version, `"v3"`); send it back in `If-None-Match` to get 304 while it is unchanged, or in `If-Match` to change the event only if nobody else has.',
    schema: { type: 'string' },
    example: '"v3"',
  },
  'RateLimit-Policy': {
    description:
      'The limit that refused the request (IETF draft-ietf-httpapi-ratelimit-headers): its name, quota `q` and window `w` in seconds.',
    schema: { type: 'string' },
    example: '"login-pair";q=10;w=300',
  },
  RateLimit: {
    description: 'What is left of that limit (`r`) and the seconds until it resets (`t`).',
    schema: { type: 'string' },
    example: '"login-pair";r=0;t=300',
  },
};

/** Conditional-request headers, as parameters of the operations that honour them. */
const CONDITIONAL_PARAMETERS: Record<'If-None-Match' | 'If-Match', Json> = {
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    description:
      'Entity tags of representations the client holds (`*`: any); when one matches (weak comparison), the answer is 304 without a body.',
    schema: { type: 'string' },
    example: '"v3"',
  },
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    description:
      "The event's entity tag as last read (`ETag`), or `*`: the change is made only if it is still current (strong comparison), else 412 and nothing changes. Left out: no check, as the reference clients send.",
    schema: { type: 'string' },
    example: '"v3"',
  },
};

/** zod → JSON Schema 2020-12 (OpenAPI 3.1's dialect); refinements carry theirs through `.meta()`. */
function fromZod(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Json;
  delete json.$schema;
  return json;
}

/** A nullable `anyOf: [X, {type: null}]` as X: query and path parameters are never null. */
function withoutNull(schema: Json): Json {
  const anyOf = schema.anyOf as Json[] | undefined;
  if (!anyOf) return schema;
  const rest = anyOf.filter((branch) => branch.type !== 'null');
  if (rest.length !== 1) return schema;
  const { anyOf: _dropped, ...others } = schema;
  return { ...rest[0], ...others };
}

function unwrapNonNull<T extends GraphQLInputType | GraphQLOutputType>(type: T): T {
  return (isNonNullType(type) ? type.ofType : type) as T;
}

/** What a GraphQL input type accepts, as JSON Schema (scalars, lists, input objects with no unknown fields). */
function inputTypeSchema(type: GraphQLInputType): Json {
  const inner = unwrapNonNull(type);
  if (isListType(inner)) return { type: 'array', items: inputTypeSchema(inner.ofType) };
  if (isEnumType(inner)) return { type: 'string', enum: inner.getValues().map((v) => v.value) };
  if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields());
    return {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f.name, inputTypeSchema(f.type)])),
      required: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name),
      additionalProperties: false,
    };
  }
  return scalarSchema(inner);
}

/**
 * A request body: the zod schema that validates the input type (its rules), completed with what the
 * GraphQL input type enforces first (scalar formats, no unknown fields) and its descriptions.
 */
function requestBodySchema(type: GraphQLInputType): Json {
  const inputType = getNamedType(type);
  if (!isInputObjectType(inputType)) return inputTypeSchema(type);
  const validator = pothosOptionsOf(inputType).validate;
  const schema = validator instanceof z.ZodType ? fromZod(validator) : inputTypeSchema(type);
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  for (const field of Object.values(inputType.getFields())) {
    properties[field.name] ??= inputTypeSchema(field.type);
    const property = properties[field.name]!;
    // A nullable field's rules sit in its non-null branch.
    const branches = (property.anyOf as Json[] | undefined) ?? [property];
    const target = branches.find((branch) => branch.type !== 'null') ?? property;
    const { description: _d, ...graphqlKeywords } = inputTypeSchema(field.type);
    for (const [key, value] of Object.entries(graphqlKeywords)) target[key] ??= value;
    if (field.description) property.description ??= field.description;
  }
  schema.properties = properties;
  schema.additionalProperties = false;
  if (inputType.description) schema.description ??= inputType.description;
  return schema;
}

/** What REST answers for a root field: the selected fields (null ones left out, so not required). */
function outputSchema(type: GraphQLOutputType, selections?: SelectionSetNode): Json {
  const inner = unwrapNonNull(type);
  if (isListType(inner)) return { type: 'array', items: outputSchema(inner.ofType, selections) };
  if (isEnumType(inner)) return { type: 'string', enum: inner.getValues().map((v) => v.value) };
  if (isObjectType(inner)) {
    const fields = inner.getFields();
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const selection of selections?.selections ?? []) {
      if (selection.kind !== Kind.FIELD) continue;
      const field = fields[selection.name.value];
      if (!field) continue;
      const key = selection.alias?.value ?? field.name;
      properties[key] = {
        ...outputSchema(field.type, selection.selectionSet),
        ...(field.description ? { description: field.description } : {}),
      };
      if (isNonNullType(field.type)) required.push(key);
    }
    return {
      type: 'object',
      properties,
      required,
      ...(inner.description ? { description: inner.description } : {}),
    };
  }
  return scalarSchema(inner);
}

interface CompiledOperation {
  operation: OperationDefinitionNode;
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
      operation,
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
    operation,
    field,
    selection,
    variableTypes,
    bodyType: field.type,
    selectsTotal: selectsTotalIn(operation.selectionSet),
  };
}

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const pathParameterNames = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

function scopesOf(field: GraphQLField<unknown, unknown>): Record<string, unknown> | undefined {
  const scopes = pothosOptionsOf(field).authScopes;
  return scopes && typeof scopes === 'object' ? (scopes as Record<string, unknown>) : undefined;
}

/** Builds the document from the route table and the GraphQL schema (both default to the app's). */
export function buildOpenApiDocument(
  routes: Route[] = restRoutes,
  schema: GraphQLSchema = graphqlSchema,
): Json {
  const components = {
    schemas: {} as Record<string, Json>,
    parameters: {} as Record<string, Json>,
    examples: {} as Record<string, Json>,
    responses: {} as Record<string, Json>,
    headers: {} as Record<string, Json>,
    securitySchemes: {
      [OPENAPI_SECURITY_SCHEME]: {
        type: 'http',
        scheme: 'basic',
        description: 'HTTP Basic credentials of a `visitor` or `staff` account.',
      },
    },
  };

  /** Registers a schema under `name`, or under a name of its own when `name` holds another. */
  const addSchema = (name: string, value: Json, fallback: string) => {
    const existing = components.schemas[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(value))
      return addSchema(fallback, value, `${fallback}_`);
    components.schemas[name] = value;
    return ref('schemas', name);
  };
  const addHeader = (name: string) => {
    components.headers[name] = HEADERS[name]!;
    return ref('headers', name);
  };
  const addProblem = (kind: ErrorKind) => {
    const documented: { name: string; description: string; detail: string; headers?: readonly string[] } =
      ERROR_KINDS[kind].documented;
    const { name, description, detail } = documented;
    if (!components.responses[name]) {
      const headers: Record<string, Json> = {};
      for (const header of documented.headers ?? []) headers[header] = addHeader(header);
      const issues =
        kind === 'validation' ? [{ path: 'price', message: 'must have at most 2 decimals' }] : [];
      components.responses[name] = {
        description,
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
        content: {
          'application/problem+json': {
            schema: ref('schemas', 'Problem'),
            example: problemOf(kind, detail, issues),
          },
        },
      };
    }
    return ref('responses', name);
  };
  const addExamples = (examples: Examples | undefined) =>
    examples && Object.keys(examples).length > 0
      ? {
          examples: Object.fromEntries(
            Object.entries(examples).map(([name, example]) => {
              components.examples[name] = example;
              return [
                name.replace(/(Request|Response)Example$/, '').replace(/^(Buy|Get|List)/, ''),
                ref('examples', name),
              ];
            }),
          ),
        }
      : {};
  components.schemas.Problem = fromZod(problemSchema);

  const paths: Record<string, Record<string, Json>> = {};
  const usedTags = new Set<string>();
  for (const route of compileRoutes(schema, routes)) {
    const compiled = describe(schema, route);
    const { field, variableTypes } = compiled;
    const docs = routeDocs[route.operationId];
    if (!docs) throw new Error(`Route ${route.operationId} has no documentation in route-docs.ts`);

    const parameters: Json[] = [];
    const argsValidator = pothosOptionsOf(field).validate;
    const argsSchema = argsValidator instanceof z.ZodType ? fromZod(argsValidator) : { properties: {} };
    const parameter = (name: string, location: 'path' | 'query') => {
      const type = variableTypes.get(name);
      const fromRules = (argsSchema.properties as Record<string, Json> | undefined)?.[name];
      const schemaOf = withoutNull(fromRules ?? (type ? inputTypeSchema(type) : { type: 'string' }));
      if (
        schemaOf.type === 'integer' &&
        (schemaOf.maximum === undefined || Number(schemaOf.maximum) > 2 ** 31 - 1)
      ) {
        schemaOf.maximum = 2 ** 31 - 1; // GraphQL Int
      }
      const known = PARAMETERS[name];
      const argument = field.args.find((a) => a.name === name);
      const definition: Json = {
        name,
        in: location,
        description: known?.description ?? argument?.description ?? name,
        ...(location === 'path' ? { required: true } : {}),
        schema: schemaOf,
        ...(known ? { example: known.example } : {}),
      };
      if (!known) return definition;
      components.parameters[known.component] ??= definition;
      return ref('parameters', known.component);
    };
    for (const name of pathParameterNames(route.path)) parameters.push(parameter(name, 'path'));
    for (const name of route.query ?? []) parameters.push(parameter(name, 'query'));
    const conditional = (name: keyof typeof CONDITIONAL_PARAMETERS) => {
      components.parameters[name] ??= CONDITIONAL_PARAMETERS[name];
      return ref('parameters', name);
    };
    if (route.method === 'GET') parameters.push(conditional('If-None-Match'));
    if (Object.values(route.headers ?? {}).includes('if-match')) parameters.push(conditional('If-Match'));

    const examples = docs.examples ?? {};
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
    for (const tag of operation.tags as string[]) usedTags.add(tag);
    if (parameters.length > 0) operation.parameters = parameters;

    const inputType = route.body ? variableTypes.get(BODY_VARIABLE) : undefined;
    if (inputType) {
      const named = getNamedType(inputType);
      const body = addSchema(named.name.replace(/Input$/, ''), requestBodySchema(inputType), named.name);
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: body, ...addExamples(examples.request) } },
      };
    }

    const responses: Record<string, Json> = {};
    const produced = (route as { produces?: { contentType?: string } }).produces?.contentType;
    if (route.status === 204) {
      responses['204'] = { description: 'Success - no content.' };
    } else if (produced) {
      // A body other than JSON (a rendered image): described by its media type only.
      const name = docs.responseSchema ?? `${capitalized(route.operationId)}Body`;
      responses[String(route.status)] = {
        description: route.status === 201 ? 'Created.' : 'Success.',
        headers: { ETag: addHeader('ETag') },
        content: {
          [produced]: {
            schema: addSchema(name, { type: 'string', contentMediaType: produced }, `${name}_`),
          },
        },
      };
    } else {
      const shape = outputSchema(compiled.bodyType, compiled.selection);
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
      responses[String(route.status)] = {
        description: route.status === 201 ? 'Created.' : 'Success.',
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
        content: { 'application/json': { schema: responseSchema, ...addExamples(examples.response) } },
      };
    }

    const scopes = scopesOf(field);
    const kinds: ErrorKind[] = ['validation'];
    if (scopes) kinds.push('unauthenticated');
    if (scopes && Object.keys(scopes).some((scope) => scope !== 'authenticated')) kinds.push('forbidden');
    if (route.notFound || pathParameterNames(route.path).length > 0) kinds.push('notFound');
    kinds.push(...(docs.problems ?? []));
    if (route.body) kinds.push('payloadTooLarge', 'unsupportedMediaType');
    if (scopes) kinds.push('tooManyRequests');
    kinds.push('internal', 'unavailable');
    if (route.method === 'GET')
      responses['304'] = {
        description: 'Not modified: `If-None-Match` named the current representation; no body.',
        headers: { ETag: addHeader('ETag') },
      };
    for (const kind of [...new Set(kinds)].sort((a, b) => ERROR_KINDS[a].status - ERROR_KINDS[b].status)) {
      responses[String(ERROR_KINDS[kind].status)] = addProblem(kind);
    }
    operation.responses = responses;

    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Museum API',
      version: packageJson.version,
      description: DESCRIPTION,
      license: { name: 'MIT', url: 'https://opensource.org/license/mit/' },
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ [OPENAPI_SECURITY_SCHEME]: [] }],
    tags: [...usedTags].map((name) => ({ name, ...(TAGS[name] ? { description: TAGS[name] } : {}) })),
    paths,
    webhooks: { publishNewEvent: PUBLISH_NEW_EVENT },
    components: Object.fromEntries(
      Object.entries(components).filter(([, section]) => Object.keys(section).length > 0),
    ),
  };
}

/** The document as `schema/openapi.json` holds it and `/openapi.json` serves it. */
export const printedOpenApiDocument = () => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
