import type { Plugin } from 'graphql-yoga';
import { entityTag, noneMatch } from '../http/conditional.ts';

const isGraphQLResult = (contentType: string | null) =>
  contentType !== null &&
  (contentType.startsWith('application/json') || contentType.startsWith('application/graphql-response+json'));

/**
 * Caching on /graphql, said deliberately: a query over GET (a trusted document, typically) is a read like
 * REST's — `private, no-cache` and a strong ETag derived from the answer, so If-None-Match gets 304 with no
 * body; a POST, or any error, is `no-store`. (Mutations over GET are refused by yoga with 405.)
 */
export function useQueryValidators(graphqlEndpoint: string): Plugin {
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      // Only GraphQL results: the documentation's files (compressed, with ETags of their own) pass untouched.
      if (!isGraphQLResult(response.headers.get('content-type'))) return;
      if (new URL(request.url).pathname !== graphqlEndpoint) return;
      const headers = new fetchAPI.Headers(response.headers);
      if (request.method !== 'GET' || response.status !== 200) {
        if (headers.has('cache-control')) return;
        headers.set('Cache-Control', 'no-store');
        setResponse(new fetchAPI.Response(response.body, { status: response.status, headers }));
        return;
      }
      const body = await response.text();
      const tag = entityTag(body);
      headers.set('ETag', tag);
      headers.set('Cache-Control', 'private, no-cache');
      headers.append('Vary', 'Authorization');
      if (noneMatch(request.headers.get('if-none-match'), tag)) {
        headers.delete('Content-Type');
        headers.delete('Content-Length');
        setResponse(new fetchAPI.Response(null, { status: 304, headers }));
        return;
      }
      setResponse(new fetchAPI.Response(body, { status: 200, headers }));
    },
  };
}
