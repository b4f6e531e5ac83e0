// The shared components of the OpenAPI document (src/openapi/document.ts): the Problem schema and the error
// responses (from the error table, common/errors.ts), the response headers, the conditional-request
// parameters, the `Idempotency-Key` parameter and the security scheme; and the registry in which the operations put their schemas,
// parameters and examples as they are described.

import { z } from 'zod';
import { ERROR_KINDS, type ErrorKind } from '../common/errors.ts';
import { PROBLEM_LIMITS, PROBLEM_TYPES, problemOf, WWW_AUTHENTICATE } from '../protocol/problem.ts';
import { HEADER_LIMIT_BYTES } from '../protocol/request.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_TTL_HOURS, idempotencyKeySchema } from '../tickets/idempotency.ts';
import type { Examples } from './route-docs.ts';
import { fromZod, type Json } from './schemas.ts';
import { OPENAPI_SECURITY_SCHEME } from './security-scheme.ts';

const problemSchema = z
  .object({
    type: z
      .enum(PROBLEM_TYPES)
      .meta({ description: 'The kind of problem, a URI reference.', example: '/problems/validation' }),
    title: z
      .enum(Object.values(ERROR_KINDS).map((kind) => kind.title))
      .meta({ description: 'Short summary of the kind.', example: 'Validation failed' }),
    status: z.int().min(100).max(599).meta({ description: 'The HTTP status code.', example: 400 }),
    detail: z.string().max(PROBLEM_LIMITS.detail).meta({ description: 'What went wrong with this request.' }),
    errors: z
      .array(
        z.object({
          path: z.string().max(PROBLEM_LIMITS.path).meta({
            description:
              'The offending field as a client writes it (`dates[1]`, `price`, `page`); empty for the whole body.',
          }),
          message: z.string().max(PROBLEM_LIMITS.message),
        }),
      )
      .max(PROBLEM_LIMITS.issues)
      .optional()
      .meta({
        description: `Every offending field of a validation failure (400; the first ${PROBLEM_LIMITS.issues}); the field or order line another refusal concerns (409, 404), where it names one.`,
      }),
  })
  .meta({ description: 'RFC 9457 problem details.' });

/** A header's value: one line, within what the server takes of a request's headers. */
export const HEADER_VALUE = { type: 'string', maxLength: HEADER_LIMIT_BYTES, pattern: '^[^\\r\\n]*$' };

const HEADERS: Record<string, Json> = {
  Link: {
    description:
      'RFC 8288 links: `first`, `prev` (a page with items), `next`, and `last` where the total is counted.',
    // Up to four links, each a path and its query (an e-mail address at most among the filters).
    schema: { type: 'string', pattern: '^<', maxLength: 4096 },
    example: '</special-events?page=2&limit=10>; rel="next", </special-events?page=1&limit=10>; rel="first"',
  },
  'X-Total-Count': {
    description: 'How many items all the pages hold together.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 2 ** 31 - 1 },
    example: 12,
  },
  Location: {
    description: 'Where the created resource lives.',
    schema: { type: 'string', format: 'uri-reference', maxLength: 200 },
  },
  'WWW-Authenticate': {
    description: 'The authentication scheme to use.',
    schema: { type: 'string', enum: [WWW_AUTHENTICATE] },
    example: WWW_AUTHENTICATE,
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 86_400 },
  },
  ETag: {
    description:
      'A strong entity tag of this representation (an event: its version, `"v3"`); send it back in `If-None-Match` to get 304 while it is unchanged, or in `If-Match` to change the event only if nobody else has.',
    // A version (`"v3"`) or a base64url digest of the representation (protocol/conditional.ts).
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]+"$', maxLength: 64 },
    example: '"v3"',
  },
  'RateLimit-Policy': {
    description:
      'The limit that refused the request (IETF draft-ietf-httpapi-ratelimit-headers): its name, quota `q` and window `w` in seconds.',
    schema: { type: 'string', pattern: '^"[a-z-]+";q=\\d+;w=\\d+$', maxLength: 100 },
    example: '"login-pair";q=10;w=300',
  },
  RateLimit: {
    description: 'What is left of that limit (`r`) and the seconds until it resets (`t`).',
    schema: { type: 'string', pattern: '^"[a-z-]+";r=\\d+;t=\\d+$', maxLength: 100 },
    example: '"login-pair";r=0;t=300',
  },
  'Access-Control-Allow-Origin': {
    description:
      "The request's `Origin`, sent back when `CORS_ORIGINS` lists it (on every answer, refusals too); absent otherwise.",
    schema: { ...HEADER_VALUE, pattern: '^https?://[^/?#\\s]+$' },
    example: 'https://app.example.com',
  },
};

/** Conditional-request headers, as parameters of the operations that honour them. */
const CONDITIONAL_PARAMETERS: Record<'If-None-Match' | 'If-Match', Json> = {
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    description:
      'Entity tags of representations the client holds (`*`: any); when one matches (weak comparison), the answer is 304 without a body.',
    schema: HEADER_VALUE,
    example: '"v3"',
  },
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    description:
      "The event's entity tag as last read (`ETag`), or `*`: the change is made only if it is still current (strong comparison), else 412 and nothing changes. Left out: no check, as the reference clients send.",
    schema: HEADER_VALUE,
    example: '"v3"',
  },
};

/**
 * The `Idempotency-Key` request header of the purchases that honour it (RouteDocs.idempotencyKey): its limits
 * are the rule the service checks (idempotencyKeySchema, src/tickets/idempotency.ts), its replay as docs/api.md tells it.
 */
const IDEMPOTENCY_KEY_PARAMETER: Json = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  description: `Makes the purchase safe to retry: the first successful answer for your account and this key is stored with a hash of the request and replayed for ${IDEMPOTENCY_TTL_HOURS} hours, the same status, body and ids, so a client that retries (a phone that lost the answer) is charged once. The same key with a different body is 422 and changes nothing; a request that failed stores nothing (fix it and retry with the same key); concurrent requests with one key wait for the first and replay its answer. 1 to 255 visible ASCII characters; left out, every request is a new purchase.`,
  schema: fromZod(idempotencyKeySchema),
  example: 'order-4711',
};

const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

/** The document's `components`, filled in as the operations are described, and how they are added. */
export type Components = ReturnType<typeof createComponents>;

export function createComponents() {
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
        description:
          'HTTP Basic credentials of a `visitor` or `staff` account (or a `gate` account, for check-ins and ticket reads).',
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
  /** A response's headers and those every answer may carry (CORS, src/http/edge-headers.ts). */
  const withEdgeHeaders = (headers: Record<string, Json> = {}) => ({
    ...headers,
    'Access-Control-Allow-Origin': addHeader('Access-Control-Allow-Origin'),
  });
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
        headers: withEdgeHeaders(headers),
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

  const addParameter = (name: string, definition: Json) => {
    components.parameters[name] ??= definition;
    return ref('parameters', name);
  };
  const conditional = (name: keyof typeof CONDITIONAL_PARAMETERS) =>
    addParameter(name, CONDITIONAL_PARAMETERS[name]);
  const idempotencyKey = () => addParameter(IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PARAMETER);

  return {
    addSchema,
    addHeader,
    withEdgeHeaders,
    addProblem,
    addExamples,
    addParameter,
    conditional,
    idempotencyKey,
    /** The sections that hold anything, as the document's `components`. */
    sections: () =>
      Object.fromEntries(Object.entries(components).filter(([, section]) => Object.keys(section).length > 0)),
  };
}
