import { ERROR_KINDS, type ErrorKind, type FieldIssue, issuesWithoutAddresses } from '../common/errors.ts';
import { withoutAddresses } from '../common/text.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
export const WWW_AUTHENTICATE = 'Basic realm="Museum API", charset="UTF-8"';

/** RFC 9457 problem details, as every REST error answers. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldIssue[];
}

/** A problem; an e-mail address its detail or issues repeat from the request (a path, a key) shows as `<address>`. */
export function problemOf(kind: ErrorKind, detail: string, issues: FieldIssue[] = []): Problem {
  const { status, title } = ERROR_KINDS[kind];
  const problem: Problem = {
    type: `/problems/${kebab(kind)}`,
    title,
    status,
    detail: withoutAddresses(detail),
  };
  // Every field a validation failed on; another refusal names the fields it concerns, if any.
  if (kind === 'validation' || issues.length > 0) problem.errors = issuesWithoutAddresses(issues);
  return problem;
}

/** The problem+json answer's status, headers and body; both transports send it as it is. */
export function problemAnswer(
  kind: ErrorKind,
  detail: string,
  issues: FieldIssue[] = [],
  headers: Record<string, string> = {},
): { status: number; headers: Record<string, string>; body: string } {
  const problem = problemOf(kind, detail, issues);
  return {
    status: problem.status,
    // An error is about this one request: nobody may keep it.
    headers: {
      'Content-Type': PROBLEM_CONTENT_TYPE,
      'Cache-Control': 'no-store',
      ...(kind === 'unauthenticated' ? { 'WWW-Authenticate': WWW_AUTHENTICATE } : {}),
      ...headers,
    },
    body: JSON.stringify(problem),
  };
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
