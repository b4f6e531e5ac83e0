// The headers every response carries (src/http/front.ts adds them to its own answers and to yoga's), and
// the CORS answers for the configured origins.

export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, Idempotency-Key';
export const CORS_EXPOSED_HEADERS = 'Location, Link, X-Total-Count, Retry-After, WWW-Authenticate';
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
