import { ConnectionException, DriverException } from '@mikro-orm/core';
import { GraphQLError } from 'graphql';
import { TOOK_TOO_LONG } from '../common/deadline.ts';
import {
  DomainError,
  ERROR_KINDS,
  type ErrorKind,
  type FieldIssue,
  issuesWithoutAddresses,
} from '../common/errors.ts';
import { withoutAddresses } from '../common/text.ts';
import type { Logger } from '../logger.ts';

/**
 * A GraphQL error the client may see, carrying its kind's code and the fields at fault: every one of a
 * validation's, and those another refusal names (a sold-out order line, a refused confirmation code).
 */
export function clientError(
  kind: ErrorKind,
  message: string,
  issues: FieldIssue[] = [],
  from?: GraphQLError,
) {
  return new GraphQLError(message, {
    nodes: from?.nodes,
    source: from?.source,
    positions: from?.positions,
    path: from?.path,
    extensions: {
      code: ERROR_KINDS[kind].code,
      ...(kind === 'validation' || issues.length > 0 ? { errors: issues } : {}),
    },
  });
}

/**
 * `error` as a client is shown it: without the e-mail addresses its message or issues repeat from the input
 * (graphql-js quotes a literal it refuses: `Int cannot represent non-integer value: "…"`; a path names a key
 * the client sent). The same error when there are none.
 */
export function withoutAddressesShown(error: GraphQLError): GraphQLError {
  const issues = error.extensions.errors as FieldIssue[] | undefined;
  const shownIssues = issues && issuesWithoutAddresses(issues);
  if (!error.message.includes('@') && shownIssues === issues) return error;
  return new GraphQLError(withoutAddresses(error.message), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: shownIssues ? { ...error.extensions, errors: shownIssues } : error.extensions,
  });
}

/**
 * A refusal that decides the HTTP status for every client (GraphQL over HTTP lets an error raised before
 * execution do so): its kind's status, with `headers`.
 */
export function refusal(kind: ErrorKind, message: string, headers: Record<string, string> = {}) {
  const error = clientError(kind, message);
  Object.assign(error.extensions, { http: { status: ERROR_KINDS[kind].status, headers } });
  return error;
}

/**
 * The driver's words for a connection that is gone or cannot be made; these errors carry no SQLSTATE
 * (pg, pg-pool and pglite-socket).
 */
const CONNECTION_LOST =
  /not queryable|Connection terminated|connection error|Cannot use a pool after calling end|timeout exceeded when trying to connect|Client was closed|Connection ended|socket hang up|ECONNREFUSED|ECONNRESET|EPIPE|Too many connections/i;

/** PgBouncer's errors (SQLSTATE 08P01) that mean the server behind it cannot serve now. */
const POOLER_UNAVAILABLE =
  /query_wait_timeout|server login has been failing|cannot connect to server|server conn crashed|no more connections allowed|client_login_timeout|server_connect_timeout|database removed|pooler is shutting down/i;

/** SQLSTATE codes that mean the database cannot serve now: class 08, shutdowns, too many connections, gone. */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', '3D000']);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOENT', 'ETIMEDOUT', 'EHOSTUNREACH']);

/**
 * Whether `error`, or an error it wraps (a GraphQL error around a failed context, an error with a cause),
 * passes `test`: the driver's error may sit a few wrappings deep.
 */
function inChain(error: unknown, test: (error: unknown) => boolean): boolean {
  let current = error;
  for (let depth = 0; current !== null && current !== undefined && depth <= 5; depth++) {
    if (test(current)) return true;
    const inner =
      (current as { originalError?: unknown }).originalError ?? (current as { cause?: unknown }).cause;
    if (inner === current) return false;
    current = inner;
  }
  return false;
}

/** Whether an error means the database is out of reach (503, try again), rather than a fault (500). */
export const isDatabaseUnreachable = (error: unknown): boolean => inChain(error, isUnreachable);

function isUnreachable(error: unknown): boolean {
  if (error instanceof ConnectionException) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code) || SOCKET_CODES.has(code)) return true;
    // SQLSTATE class 08: connection exceptions (08P01 is a protocol violation: a bad request, not an outage,
    // except from PgBouncer, whose every error is 08P01: those that say the server is out of its reach are).
    if (code === '08P01') return error instanceof Error && POOLER_UNAVAILABLE.test(error.message);
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
    return false;
  }
  return error instanceof Error && CONNECTION_LOST.test(error.message);
}

/** Whether PostgreSQL cancelled the statement (57014: its statement_timeout passed), through any wrapping. */
const isStatementCancelled = (error: unknown): boolean =>
  inChain(error, (inner) => (inner as { code?: unknown }).code === '57014');

/**
 * Yoga's error mask: domain errors become coded client errors, GraphQL's own errors pass, anything else
 * is logged and replaced by a bare "Internal server error" (503 when the database is out of reach).
 * No stack, SQL or secret reaches a client.
 */
export function createErrorMask(logger: Logger) {
  return (error: unknown): Error => {
    const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
    const located = error instanceof GraphQLError ? error : undefined;
    if (original instanceof DomainError) {
      const masked = clientError(original.kind, original.message, original.issues, located);
      if (original.retryAfterSeconds !== undefined)
        masked.extensions.http = { headers: { 'Retry-After': String(original.retryAfterSeconds) } };
      return masked;
    }
    if (original instanceof GraphQLError) return located ?? original;
    // Not the client's doing: the HTTP status says so to every client, application/json ones included.
    if (isStatementCancelled(original)) {
      // statement_timeout (REQUEST_TIMEOUT_MS) stopped it: the operation's deadline, met by the database.
      logger.warn('statement cancelled', { error: describe(original) });
      return withStatus(clientError('unavailable', TOOK_TOO_LONG, [], located), 503, { 'Retry-After': '5' });
    }
    if (isDatabaseUnreachable(original)) {
      logger.error('database unreachable', { error: describe(original) });
      return withStatus(
        clientError('unavailable', 'The database is unreachable; try again shortly', [], located),
        503,
        { 'Retry-After': '5' },
      );
    }
    logger.error('unexpected error', { error: describe(original), stack: frames(original) });
    return withStatus(clientError('internal', 'Internal server error', [], located), 500);
  };
}

/** The stack's frames without its first line, which repeats the message (a driver's holds SQL and values). */
function frames(error: unknown): string | undefined {
  if (!(error instanceof Error) || !error.stack) return undefined;
  return error.stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
}

function withStatus(error: GraphQLError, status: number, headers?: Record<string, string>): GraphQLError {
  Object.assign(error.extensions, { http: headers ? { status, headers } : { status } });
  return error;
}

/** Error details for the log; a driver error's SQL and parameters are left out, they may hold personal data. */
export function describe(error: unknown): string {
  if (error instanceof DriverException) return `${error.name} ${error.code ?? ''}`.trim();
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
