import { withoutAddresses } from './text.ts';

// Transport-neutral errors thrown by the domain. One table (ERROR_KINDS) maps each kind to its GraphQL
// `extensions.code`, its HTTP status, its problem+json title and how the OpenAPI document describes it
// (`documented`: the response's name, description and an example detail), so REST and GraphQL answer alike
// and a new kind is one row.

export interface FieldIssue {
  /** The offending field as the client spelled it: `dates[1]`, `input.price`, `page`. */
  path: string;
  message: string;
}

/**
 * Issues as a client is shown them: without the e-mail addresses a path or message may repeat from the input
 * (a key the client sent, a value quoted back). The same array when there are none.
 */
export function issuesWithoutAddresses(issues: FieldIssue[]): FieldIssue[] {
  if (!issues.some((issue) => issue.path.includes('@') || issue.message.includes('@'))) return issues;
  return issues.map((issue) => ({
    path: withoutAddresses(issue.path),
    message: withoutAddresses(issue.message),
  }));
}

export const ERROR_KINDS = {
  validation: {
    code: 'BAD_USER_INPUT',
    status: 400,
    title: 'Validation failed',
    documented: {
      name: 'BadRequest',
      description: 'Bad request: a parameter or the body breaks a rule, or the body is not JSON.',
      detail: 'price: must have at most 2 decimals',
    },
  },
  unauthenticated: {
    code: 'UNAUTHENTICATED',
    status: 401,
    title: 'Unauthorized',
    documented: {
      name: 'Unauthorized',
      headers: ['WWW-Authenticate'],
      description: 'Unauthorized: credentials are missing, malformed or wrong.',
      detail: 'Credentials are required: send HTTP Basic credentials of an account',
    },
  },
  forbidden: {
    code: 'FORBIDDEN',
    status: 403,
    title: 'Forbidden',
    documented: {
      name: 'Forbidden',
      description:
        'Forbidden: the account lacks the role the operation needs (staff; for check-ins, gate or staff).',
      detail: 'This operation needs the staff role',
    },
  },
  notFound: {
    code: 'NOT_FOUND',
    status: 404,
    title: 'Not found',
    documented: {
      name: 'NotFound',
      description: 'Not found.',
      detail: 'There is no special event with that eventId',
    },
  },
  methodNotAllowed: {
    code: 'METHOD_NOT_ALLOWED',
    status: 405,
    title: 'Method not allowed',
    documented: {
      name: 'MethodNotAllowed',
      description: 'Method not allowed on this path; `Allow` lists the methods that are.',
      detail: 'PUT is not supported here; use GET, POST',
    },
  },
  notAcceptable: {
    code: 'NOT_ACCEPTABLE',
    status: 406,
    title: 'Not acceptable',
    documented: {
      name: 'NotAcceptable',
      description: 'Not acceptable: `Accept` names no media type the operation can be answered in.',
      detail:
        'Accept names no media type this operation can be answered in: a subscription streams text/event-stream; queries and mutations answer application/json or application/graphql-response+json',
    },
  },
  conflict: {
    code: 'CONFLICT',
    status: 409,
    title: 'Conflict',
    documented: {
      name: 'Conflict',
      description: 'Conflict: sold out for that date.',
      detail: 'Sold out on 2030-09-09',
    },
  },
  preconditionFailed: {
    code: 'PRECONDITION_FAILED',
    status: 412,
    title: 'Precondition failed',
    documented: {
      name: 'PreconditionFailed',
      description:
        'Precondition failed: `If-Match` names a version the event no longer has (someone changed it since); nothing was changed.',
      detail: 'The event has changed since you read it (its version is not the one in If-Match)',
    },
  },
  payloadTooLarge: {
    code: 'PAYLOAD_TOO_LARGE',
    status: 413,
    title: 'Payload too large',
    documented: {
      name: 'PayloadTooLarge',
      description: 'Payload too large: the body is over 64 KiB.',
      detail: 'The request body must be at most 65536 bytes',
    },
  },
  unsupportedMediaType: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    status: 415,
    title: 'Unsupported media type',
    documented: {
      name: 'UnsupportedMediaType',
      description: 'Unsupported media type: the body must be `application/json`.',
      detail: 'The request body must be application/json',
    },
  },
  unprocessable: {
    code: 'UNPROCESSABLE_CONTENT',
    status: 422,
    title: 'Unprocessable content',
    documented: {
      name: 'UnprocessableContent',
      description: 'Unprocessable content: this `Idempotency-Key` was used with another body.',
      detail: 'This Idempotency-Key was used with another request body',
    },
  },
  tooManyRequests: {
    code: 'TOO_MANY_REQUESTS',
    status: 429,
    title: 'Too many requests',
    documented: {
      name: 'TooManyRequests',
      headers: ['Retry-After', 'RateLimit-Policy', 'RateLimit'],
      description:
        'Too many failed logins, or too many requests in progress from this client; retry after `Retry-After` seconds.',
      detail: 'Too many failed logins; try again later',
    },
  },
  internal: {
    code: 'INTERNAL_SERVER_ERROR',
    status: 500,
    title: 'Internal server error',
    documented: {
      name: 'InternalServerError',
      description: 'Internal server error.',
      detail: 'Internal server error',
    },
  },
  unavailable: {
    code: 'SERVICE_UNAVAILABLE',
    status: 503,
    title: 'Service unavailable',
    documented: {
      name: 'ServiceUnavailable',
      description: 'Service unavailable: the database is unreachable.',
      detail: 'The database is unreachable; try again shortly',
    },
  },
} as const;

export type ErrorKind = keyof typeof ERROR_KINDS;

const kindByCode = new Map<string, ErrorKind>(
  Object.entries(ERROR_KINDS).map(([kind, { code }]) => [code, kind as ErrorKind]),
);

export function kindOfCode(code: unknown): ErrorKind | undefined {
  return typeof code === 'string' ? kindByCode.get(code) : undefined;
}

export class DomainError extends Error {
  readonly kind: ErrorKind;
  readonly issues: FieldIssue[];
  /** Seconds after which the same request may succeed (a limit that frees up): sent as Retry-After. */
  retryAfterSeconds?: number;

  constructor(kind: ErrorKind, message: string, issues: FieldIssue[] = []) {
    super(message);
    this.name = 'DomainError';
    this.kind = kind;
    this.issues = issues;
  }
}

/** A limit reached (429); the same request may succeed after `retryAfterSeconds`. */
export function tooManyRequests(message: string, retryAfterSeconds: number): DomainError {
  const error = new DomainError('tooManyRequests', message);
  error.retryAfterSeconds = retryAfterSeconds;
  return error;
}

export const invalid = (
  issues: FieldIssue[],
  message = issues.map((i) => `${i.path}: ${i.message}`).join('; '),
) => new DomainError('validation', message, issues);
export const invalidField = (path: string, message: string) => invalid([{ path, message }]);
export const notFound = (message: string) => new DomainError('notFound', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const preconditionFailed = (message: string) => new DomainError('preconditionFailed', message);
export const unauthenticated = (message: string) => new DomainError('unauthenticated', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);

/** Formats a zod/Standard-Schema path the way a JavaScript client would write it: `dates[1]`, `input.name`. */
export function formatPath(path: ReadonlyArray<PropertyKey | { key: PropertyKey }>): string {
  let out = '';
  for (const segment of path) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
