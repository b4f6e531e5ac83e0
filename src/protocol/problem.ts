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

/**
 * What a problem holds at most (characters, as code points), so that no answer grows with what a client sent
 * (a GraphQL message may repeat a field name it gave): the first `issues` issues, each text cut short.
 */
export const PROBLEM_LIMITS = { issues: 100, detail: 2000, path: 200, message: 500 } as const;

/** `text` of at most `max` code points: cut short with `…` when longer. */
function atMost(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
}

/** A problem; an e-mail address its detail or issues repeat from the request (a path, a key) shows as `<address>`. */
export function problemOf(kind: ErrorKind, detail: string, issues: FieldIssue[] = []): Problem {
  const { status, title } = ERROR_KINDS[kind];
  const problem: Problem = {
    type: `/problems/${kebab(kind)}`,
    title,
    status,
    detail: atMost(withoutAddresses(detail), PROBLEM_LIMITS.detail),
  };
  // Every field a validation failed on; another refusal names the fields it concerns, if any.
  if (kind === 'validation' || issues.length > 0)
    problem.errors = issuesWithoutAddresses(issues.slice(0, PROBLEM_LIMITS.issues)).map((issue) => ({
      path: atMost(issue.path, PROBLEM_LIMITS.path),
      message: atMost(issue.message, PROBLEM_LIMITS.message),
    }));
  return problem;
}

/** Every problem type, for the OpenAPI document. */
export const PROBLEM_TYPES = (Object.keys(ERROR_KINDS) as ErrorKind[]).map(
  (kind) => `/problems/${kebab(kind)}`,
);

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
