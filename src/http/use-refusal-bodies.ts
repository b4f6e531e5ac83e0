import type { Plugin } from 'graphql-yoga';
import { ERROR_KINDS, type ErrorKind } from '../common/errors.ts';
import { graphqlRefusal } from './graphql-endpoint.ts';

const kindByStatus = new Map<number, ErrorKind>(
  Object.entries(ERROR_KINDS).map(([kind, { status }]) => [status, kind as ErrorKind]),
);

/**
 * Yoga's bare refusals of what it streams (405 for another method, 406 for an Accept it cannot serve, with
 * no body) get the endpoint's one GraphQL error body (src/http/graphql-endpoint.ts), with the same status.
 */
export function useRefusalBodies(): Plugin {
  return {
    onResponse({ response, setResponse, fetchAPI }) {
      if (response.status < 400 || response.headers.has('content-type')) return;
      const kind = kindByStatus.get(response.status);
      // What to send instead is worth saying; the other refusals' titles say enough.
      const refusal = !kind
        ? graphqlRefusal('validation', 'Request refused')
        : graphqlRefusal(
            kind,
            kind === 'notAcceptable' ? ERROR_KINDS.notAcceptable.documented.detail : ERROR_KINDS[kind].title,
          );
      const headers = new fetchAPI.Headers(response.headers);
      for (const [name, value] of Object.entries(refusal.headers)) headers.set(name, value);
      headers.delete('Content-Length');
      setResponse(new fetchAPI.Response(refusal.body as string, { status: response.status, headers }));
    },
  };
}
