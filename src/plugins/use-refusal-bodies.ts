import type { Plugin } from 'graphql-yoga';
import { ERROR_KINDS, type ErrorKind } from '../common/errors.ts';

const kindByStatus = new Map<number, ErrorKind>(
  Object.entries(ERROR_KINDS).map(([kind, { status }]) => [status, kind as ErrorKind]),
);

/**
 * Yoga's bare refusals on /graphql (405 for another method, 406 for an Accept it cannot serve, with no
 * body) become GraphQL errors with the same status and a code, like every other error of the endpoint.
 * The other edges (body limit, media type, CORS, security headers) are front.ts's, for every path.
 */
export function useRefusalBodies(): Plugin {
  return {
    onResponse({ response, setResponse, fetchAPI }) {
      if (response.status < 400 || response.headers.has('content-type')) return;
      const kind = kindByStatus.get(response.status);
      const { code, title } = kind ? ERROR_KINDS[kind] : { code: 'BAD_REQUEST', title: 'Request refused' };
      // What to send instead is worth saying; the other refusals' titles say enough.
      const message = kind === 'notAcceptable' ? ERROR_KINDS.notAcceptable.documented.detail : title;
      const headers = new fetchAPI.Headers(response.headers);
      headers.set('Content-Type', 'application/json; charset=utf-8');
      headers.delete('Content-Length');
      setResponse(
        new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), {
          status: response.status,
          headers,
        }),
      );
    },
  };
}
