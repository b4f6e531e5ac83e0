// The headers every response carries (src/http/pipeline.ts adds them to every answer, yoga's streams too), and
// the CORS answers for the configured origins.

export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, Idempotency-Key';
export const CORS_EXPOSED_HEADERS =
  'Location, Link, X-Total-Count, Retry-After, WWW-Authenticate, ETag, RateLimit, RateLimit-Policy';
export const CORS_METHODS = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';

/** What a JSON API response needs: nothing may load or frame it. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Security headers, and CORS for an allowed origin, added to a response's headers in place. */
export function addEdgeHeaders(
  headers: Record<string, string>,
  origin: string | null,
  allowedOrigins: ReadonlySet<string>,
): Record<string, string> {
  headers['X-Content-Type-Options'] = 'nosniff';
  headers['Referrer-Policy'] = 'no-referrer';
  headers['Content-Security-Policy'] ??= API_CSP;
  if (allowedOrigins.size > 0) {
    headers.Vary = headers.Vary ? `${headers.Vary}, Origin` : 'Origin';
    if (origin !== null && allowedOrigins.has(origin)) {
      headers['Access-Control-Allow-Origin'] = origin;
      headers['Access-Control-Expose-Headers'] = CORS_EXPOSED_HEADERS;
    }
  }
  return headers;
}

/**
 * Whether a request is a script's fetch from a page of this origin (GraphiQL, /docs): Fetch Metadata that
 * browsers send and API clients don't. Its 401 carries no `WWW-Authenticate: Basic` challenge, because a
 * browser answers that challenge with its own credentials dialog over the page, which confuses people and
 * can hang the page; the page shows the problem and has its own place for credentials. Every other client
 * (curl, SDKs, a browser opening a REST URL) gets the challenge as C2 says.
 */
export function isPageScript(header: (name: string) => string | null): boolean {
  return header('sec-fetch-site') === 'same-origin' && header('sec-fetch-dest') === 'empty';
}

/** The answer to a CORS preflight from an allowed origin, or null when the request is none. */
export function preflight(
  method: string,
  origin: string | null,
  requestMethod: string | null,
  allowedOrigins: ReadonlySet<string>,
): { status: 204; headers: Record<string, string> } | null {
  if (method !== 'OPTIONS' || origin === null || requestMethod === null || !allowedOrigins.has(origin))
    return null;
  return {
    status: 204,
    headers: {
      'Access-Control-Allow-Methods': CORS_METHODS,
      'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS,
      'Access-Control-Max-Age': '600',
    },
  };
}
