import { createHash } from 'node:crypto';
import { escapeHtml } from '../common/text.ts';
import { problemAnswer } from '../protocol/problem.ts';
import type { HttpAnswer } from '../protocol/request.ts';

/** Where a person or a client goes from `/`: the same list the start-up message prints. */
export const FRONT_PAGE_LINKS = [
  { rel: 'docs', href: '/docs', title: 'API reference (REST), with requests you can try' },
  { rel: 'graphql', href: '/graphql', title: 'GraphQL endpoint; GraphiQL when opened in a browser' },
  { rel: 'openapi', href: '/openapi.json', title: 'OpenAPI 3.1 document' },
  { rel: 'health-live', href: '/health/live', title: 'Liveness: the process answers' },
  { rel: 'health-ready', href: '/health/ready', title: 'Readiness: the database answers too' },
] as const;

const STYLE = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
a{color:#0b57d0}code{background:#f1f1f1;padding:0 .2em;border-radius:3px}li{margin:.4rem 0}`;

const HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Museum API</title>
    <style>${STYLE}</style>
  </head>
  <body>
    <h1>Museum API</h1>
    <p>Museum tickets, opening hours and special events, over REST and GraphQL. Every API request needs
    HTTP Basic credentials of an account; the pages below are open.</p>
    <ul>
${FRONT_PAGE_LINKS.map((link) => `      <li><a href="${link.href}">${link.href}</a> — ${escapeHtml(link.title)}</li>`).join('\n')}
    </ul>
    <p>Try it: <code>curl -u NAME:PASSWORD http://&lt;this address&gt;/museum-hours</code></p>
  </body>
</html>
`;

// No script at all; the one inline style is allowed by its hash.
const HTML_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const JSON_BODY = JSON.stringify({
  name: 'Museum API',
  links: Object.fromEntries(FRONT_PAGE_LINKS.map(({ rel, href, title }) => [rel, { href, title }])),
});

/**
 * `GET /`: a small HTML page for a browser, linking the reference, GraphiQL, the OpenAPI document and the
 * health checks; the same links as JSON for a client that prefers `application/json`. Open to everyone.
 */
export function frontPage(method: string, accept: string | null): HttpAnswer {
  if (method !== 'GET' && method !== 'HEAD')
    return problemAnswer('methodNotAllowed', `${method} is not supported here; use GET`, [], {
      Allow: 'GET, HEAD',
    });
  const headers = { 'Cache-Control': 'public, max-age=300', Vary: 'Accept' };
  if (prefersHtml(accept))
    return {
      status: 200,
      headers: {
        ...headers,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': HTML_CSP,
      },
      body: HTML,
    };
  return {
    status: 200,
    headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' },
    body: JSON_BODY,
  };
}

/** A browser asks for text/html before JSON; API clients and curl (`*\/*`) get JSON. */
function prefersHtml(accept: string | null): boolean {
  if (!accept) return false;
  const html = accept.indexOf('text/html');
  if (html === -1) return false;
  const json = accept.indexOf('application/json');
  return json === -1 || html < json;
}
