import { ConnectionException, DriverException } from '@mikro-orm/core';
import { GraphQLError } from 'graphql';
import { DomainError, ERROR_KINDS, type ErrorKind, type FieldIssue } from '../common/errors.ts';
import type { Logger } from '../logger.ts';

/** A GraphQL error the client may see, carrying its kind's code (and the field issues of a validation). */
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
    extensions: { code: ERROR_KINDS[kind].code, ...(kind === 'validation' ? { errors: issues } : {}) },
  });
}

export function isDatabaseUnreachable(error: unknown): boolean {
  if (error instanceof ConnectionException) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOENT', '57P01', '57P03'].includes(code)
  );
}

/**
 * Yoga's error mask: domain errors become coded client errors, GraphQL's own errors pass, anything else
 * is logged and replaced by a bare "Internal server error" (503 when the database is out of reach).
 * No stack, SQL or secret reaches a client.
 */
export function createErrorMask(logger: Logger) {
  return (error: unknown): Error => {
    const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
    const located = error instanceof GraphQLError ? error : undefined;
    if (original instanceof DomainError)
      return clientError(original.kind, original.message, original.issues, located);
    if (original instanceof GraphQLError) return located ?? original;
    if (isDatabaseUnreachable(original)) {
      logger.error('database unreachable', { error: describe(original) });
      return clientError('unavailable', 'The database is unreachable; try again shortly', [], located);
    }
    logger.error('unexpected error', { error: describe(original), stack: (original as Error | null)?.stack });
    return clientError('internal', 'Internal server error', [], located);
  };
}

/** Error details for the log; a driver error's SQL and parameters are left out, they may hold personal data. */
function describe(error: unknown): string {
  if (error instanceof DriverException) return `${error.name} ${error.code ?? ''}`.trim();
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
