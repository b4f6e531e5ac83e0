import type { Plugin } from 'graphql-yoga';
import { ERROR_KINDS, type ErrorKind, type FieldIssue } from '../common/errors.ts';
import { API_CSP, CORS_EXPOSED_HEADERS, preflight } from './edge-headers.ts';
import { clientError } from './errors.ts';
import { parseJsonBody } from './json-body.ts';
import { problemResponse } from './problem.ts';
import { BODY_LIMIT_BYTES } from './rest.ts';

export interface EdgeOptions {
  graphqlEndpoint: string;
  /** Paths answered GET/HEAD only outside the REST table and GraphQL: the documentation. */
  readOnlyPaths: (pathname: string) => boolean;
  corsOrigins: string[];
}

class BodyTooLarge extends Error {}

/** An edge refusal: problem+json on REST paths, a GraphQL error (same status and code) on /graphql. */
export function edgeResponse(
  graphql: boolean,
  kind: ErrorKind,
  detail: string,
  headers: Record<string, string> = {},
  issues: FieldIssue[] = [],
): Response {
  if (!graphql) return problemResponse(kind, detail, issues, headers);
  const { code, status } = ERROR_KINDS[kind];
  const extensions = kind === 'validation' ? { code, errors: issues } : { code };
  return new Response(JSON.stringify({ errors: [{ message: detail, extensions }] }), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}

/** Reads a body stream to its end, or throws BodyTooLarge as soon as it passes the limit. */
export async function readLimited(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const hasBody = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method);

/**
 * The HTTP edge of the requests yoga serves (/graphql and the documentation; REST routes are answered by
 * front.ts with the same rules, and the in-flight caps and Host check come earlier, in listener.ts): CORS
 * for the configured origins (preflights answered here), OPTIONS, the 64 KiB body limit (413, by Content-Length or by counting a streamed body), 415 for GraphQL POSTs that
 * are not JSON; and on the way out, security headers on every response.
 */
export function useEdges(options: EdgeOptions): Plugin {
  const allowed = new Set(options.corsOrigins);

  return {
    async onRequest({ request, setRequest, endResponse, url, fetchAPI }) {
      const graphql = url.pathname === options.graphqlEndpoint;

      const corsPreflight = preflight(
        request.method,
        request.headers.get('origin'),
        request.headers.get('access-control-request-method'),
        allowed,
      );
      if (corsPreflight) {
        endResponse(new Response(null, corsPreflight));
        return;
      }
      if (request.method === 'OPTIONS' && (graphql || options.readOnlyPaths(url.pathname))) {
        const allow = graphql ? 'GET, POST, OPTIONS' : 'GET, HEAD, OPTIONS';
        endResponse(new Response(null, { status: 204, headers: { Allow: allow } }));
        return;
      }

      if (!hasBody(request.method) || request.body === null) return;
      const declared = request.headers.get('content-length');
      const tooLarge = () =>
        endResponse(
          edgeResponse(
            graphql,
            'payloadTooLarge',
            `The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB`,
            { Connection: 'close' },
          ),
        );
      if (declared !== null && Number(declared) > BODY_LIMIT_BYTES) {
        tooLarge();
        return;
      }
      if (graphql && request.method === 'POST') {
        const mediaType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
        if (mediaType !== 'application/json') {
          endResponse(
            edgeResponse(graphql, 'unsupportedMediaType', 'A GraphQL request body must be application/json'),
          );
          return;
        }
      }
      // GraphQL bodies are read here whole (yoga would refuse `Application/JSON` with a bare 415); others
      // only when no length was given (chunked, or a Request built in process), counting the bytes.
      if (declared !== null && !graphql) return;
      try {
        const bytes = await readLimited(request.body, BODY_LIMIT_BYTES);
        if (graphql) {
          // Strict JSON (UTF-8, no key named twice) before yoga parses it its lenient way.
          const parsed = parseJsonBody(bytes);
          if (!parsed.ok) {
            endResponse(edgeResponse(graphql, 'validation', parsed.detail, {}, [parsed.issue]));
            return;
          }
        }
        const headers = new Headers(request.headers);
        if (graphql) headers.set('content-type', 'application/json');
        const replaced = new fetchAPI.Request(request.url, {
          method: request.method,
          headers,
          body: bytes as Uint8Array<ArrayBuffer>,
        });
        setRequest(replaced);
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) throw error;
        tooLarge();
      }
    },

    async onResponse({ request, response, setResponse }) {
      const url = new URL(request.url);
      if (
        url.pathname === options.graphqlEndpoint &&
        response.status >= 400 &&
        !response.headers.has('content-type')
      ) {
        // Yoga's bare refusals (405 for another method, 406 for an Accept it cannot serve): a GraphQL error.
        const kind = Object.entries(ERROR_KINDS).find(([, k]) => k.status === response.status)?.[0] as
          | ErrorKind
          | undefined;
        const { code, title } = kind ? ERROR_KINDS[kind] : { code: 'BAD_REQUEST', title: 'Request refused' };
        const replaced = new Response(
          JSON.stringify({ errors: [{ message: title, extensions: { code } }] }),
          {
            status: response.status,
            headers: response.headers,
          },
        );
        replaced.headers.set('Content-Type', 'application/json; charset=utf-8');
        replaced.headers.delete('Content-Length');
        response = replaced;
        setResponse(response);
      }
      let headers = response.headers;
      try {
        headers.set('X-Content-Type-Options', 'nosniff');
      } catch {
        // An immutable response (Response.error()/redirect()): answer a mutable copy.
        response = new Response(response.body, response);
        setResponse(response);
        headers = response.headers;
        headers.set('X-Content-Type-Options', 'nosniff');
      }
      headers.set('Referrer-Policy', 'no-referrer');
      headers.delete('X-Powered-By');
      // Pages set their own policy (use-docs.ts, use-graphiql.ts); everything else is data.
      if (!headers.has('Content-Security-Policy')) headers.set('Content-Security-Policy', API_CSP);
      if (allowed.size > 0) {
        headers.append('Vary', 'Origin');
        const origin = request.headers.get('origin');
        if (origin !== null && allowed.has(origin)) {
          headers.set('Access-Control-Allow-Origin', origin);
          headers.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
        }
      }
    },
  };
}

/**
 * A per-operation execution deadline: an operation still running after `timeoutMs` is answered 503 with
 * Retry-After (its database work finishes or fails on its own, unseen). REST runs through it too.
 */
export function useExecutionTimeout(timeoutMs: number): Plugin {
  const timedOut = () => {
    const error = clientError('unavailable', 'The request took too long; try again shortly');
    Object.assign(error.extensions, { http: { status: 503, headers: { 'Retry-After': '5' } } });
    return { errors: [error] };
  };
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<ReturnType<typeof timedOut>>((resolve) => {
          timer = setTimeout(() => resolve(timedOut()), timeoutMs);
        });
        return Promise.race([Promise.resolve(executeFn(args)), deadline]).finally(() =>
          clearTimeout(timer),
        ) as ReturnType<typeof executeFn>;
      });
    },
  };
}
