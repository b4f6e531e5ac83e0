// Transport-neutral errors thrown by the domain. One table (ERROR_KINDS) maps each kind to its GraphQL
// `extensions.code`, its HTTP status and its problem+json title, so REST and GraphQL answer alike.

export interface FieldIssue {
  /** The offending field as the client spelled it: `dates[1]`, `input.price`, `page`. */
  path: string;
  message: string;
}

export const ERROR_KINDS = {
  validation: { code: 'BAD_USER_INPUT', status: 400, title: 'Validation failed' },
  unauthenticated: { code: 'UNAUTHENTICATED', status: 401, title: 'Unauthorized' },
  forbidden: { code: 'FORBIDDEN', status: 403, title: 'Forbidden' },
  notFound: { code: 'NOT_FOUND', status: 404, title: 'Not found' },
  methodNotAllowed: { code: 'METHOD_NOT_ALLOWED', status: 405, title: 'Method not allowed' },
  conflict: { code: 'CONFLICT', status: 409, title: 'Conflict' },
  preconditionFailed: { code: 'PRECONDITION_FAILED', status: 412, title: 'Precondition failed' },
  payloadTooLarge: { code: 'PAYLOAD_TOO_LARGE', status: 413, title: 'Payload too large' },
  unsupportedMediaType: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415, title: 'Unsupported media type' },
  unprocessable: { code: 'UNPROCESSABLE_CONTENT', status: 422, title: 'Unprocessable content' },
  tooManyRequests: { code: 'TOO_MANY_REQUESTS', status: 429, title: 'Too many requests' },
  internal: { code: 'INTERNAL_SERVER_ERROR', status: 500, title: 'Internal server error' },
  unavailable: { code: 'SERVICE_UNAVAILABLE', status: 503, title: 'Service unavailable' },
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

  constructor(kind: ErrorKind, message: string, issues: FieldIssue[] = []) {
    super(message);
    this.name = 'DomainError';
    this.kind = kind;
    this.issues = issues;
  }
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
