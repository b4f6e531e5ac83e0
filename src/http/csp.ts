/**
 * The Content-Security-Policy of the HTML pages this service serves (/docs, GraphiQL): everything from
 * this origin only, plus the script and style sources a page needs.
 */
export function pagePolicy(scriptSources: Iterable<string>, styleSources: Iterable<string>): string {
  return [
    "default-src 'self'",
    `script-src ${[...scriptSources].join(' ')}`,
    `style-src ${[...styleSources].join(' ')}`,
    "font-src 'self' data:",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "frame-ancestors 'self'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}
