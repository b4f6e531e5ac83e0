// Assertions shared by the test files: the problem+json shape of C5 and the fields it names.
import { expect } from 'vitest';
import type { TestResponse } from './museum.ts';

interface Issues {
  errors?: { path: string }[];
}

/** The `path` of every issue of a problem (REST) or of a GraphQL error's extensions. */
export const errorPaths = (body: Issues | undefined): string[] => (body?.errors ?? []).map((e) => e.path);

/** The paths of every BAD_USER_INPUT issue of a GraphQL response. */
export const graphqlPaths = (body: { errors?: { extensions: Issues }[] }) =>
  (body.errors ?? []).flatMap((e) => errorPaths(e.extensions));

/** An RFC 9457 problem with this status and title. */
export function expectProblem(response: TestResponse, status: number, title: string) {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.body).toMatchObject({
    type: expect.any(String),
    title,
    status,
    detail: expect.any(String),
  });
}

/** A 400 "Validation failed" naming (at least) each of `fields`. */
export function expectValidation(response: TestResponse, ...fields: string[]) {
  expectProblem(response, 400, 'Validation failed');
  for (const field of fields) expect(errorPaths(response.body)).toContain(field);
}
