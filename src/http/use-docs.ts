import { readFile } from 'node:fs/promises';
import type { Plugin } from 'graphql-yoga';
import { pagePolicy } from './csp.ts';
import { buildOpenApiDocument, OPENAPI_SECURITY_SCHEME } from './openapi.ts';
import { problemResponse } from './problem.ts';

/** Scalar's self-contained browser bundle (scripts and styles in one file, no network at run time). */
const SCALAR_BUNDLE = new URL(
  '../../node_modules/@scalar/api-reference/dist/browser/standalone.js',
  import.meta.url,
);

export const DOCS_PATHS = {
  openapi: '/openapi.json',
  docs: '/docs',
  scalar: '/docs/assets/scalar-standalone.js',
  init: '/docs/assets/docs.js',
} as const;

// Scalar with everything that would leave this server turned off: no web fonts, no telemetry, no AI
// agent or MCP, and no CORS proxy — "Test Request" sends the request from the browser to this same origin
// (the document's server is `/`), with the credentials entered under Authentication.
const SCALAR_CONFIGURATION = {
  url: DOCS_PATHS.openapi,
  slug: 'museum-api',
  proxyUrl: '',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showOperationId: true,
  hideClientButton: false,
  persistAuth: false,
  authentication: { preferredSecurityScheme: OPENAPI_SECURITY_SCHEME },
  documentDownloadType: 'json',
};

const INIT_SCRIPT = `Scalar.createApiReference('#api-reference', ${JSON.stringify(SCALAR_CONFIGURATION)});\n`;

const HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Museum API — reference</title>
    <style>body { margin: 0; font-family: system-ui, sans-serif; }</style>
  </head>
  <body>
    <noscript>The reference needs JavaScript; the OpenAPI document itself is at <a href="${DOCS_PATHS.openapi}">${DOCS_PATHS.openapi}</a>.</noscript>
    <div id="api-reference"></div>
    <script src="${DOCS_PATHS.scalar}"></script>
    <script src="${DOCS_PATHS.init}"></script>
  </body>
</html>
`;

/**
 * The page may load and fetch from this origin only: the bundle's built-in web fonts (fonts.scalar.com)
 * and any other third-party request are refused by the browser before they leave it.
 */
const DOCS_CSP = pagePolicy(["'self'"], ["'self'", "'unsafe-inline'"]);

const isDocsPath = (pathname: string) =>
  pathname === DOCS_PATHS.openapi ||
  pathname === DOCS_PATHS.docs ||
  pathname.startsWith(`${DOCS_PATHS.docs}/`);

/**
 * `GET /openapi.json` (the generated OpenAPI 3.1 document) and `GET /docs` (an API reference rendered by
 * Scalar from the project's own dependencies, no CDN), both open without credentials. Answered in
 * onRequest, before the REST adapter could call them unknown paths.
 */
export function useDocs(): Plugin {
  let openapi: string | undefined;
  let bundle: Promise<Buffer> | undefined;

  const answer = (body: BodyInit, contentType: string, cacheControl = 'no-cache') =>
    new Response(body, {
      status: 200,
      headers: { 'Content-Type': contentType, 'Cache-Control': cacheControl },
    });

  return {
    async onRequest({ request, url, endResponse }) {
      const { pathname } = url;
      if (!isDocsPath(pathname)) return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(
          problemResponse('methodNotAllowed', `${request.method} is not supported here; use GET`, [], {
            Allow: 'GET, HEAD',
          }),
        );
        return;
      }
      if (pathname === DOCS_PATHS.openapi) {
        openapi ??= JSON.stringify(buildOpenApiDocument(), null, 2);
        endResponse(answer(openapi, 'application/json; charset=utf-8'));
      } else if (pathname === DOCS_PATHS.docs || pathname === `${DOCS_PATHS.docs}/`) {
        const page = answer(HTML, 'text/html; charset=utf-8');
        page.headers.set('Content-Security-Policy', DOCS_CSP);
        endResponse(page);
      } else if (pathname === DOCS_PATHS.init) {
        endResponse(answer(INIT_SCRIPT, 'text/javascript; charset=utf-8'));
      } else if (pathname === DOCS_PATHS.scalar) {
        bundle ??= readFile(SCALAR_BUNDLE);
        try {
          endResponse(
            answer(new Uint8Array(await bundle), 'text/javascript; charset=utf-8', 'public, max-age=3600'),
          );
        } catch {
          bundle = undefined;
          endResponse(problemResponse('internal', 'The API reference bundle is not installed'));
        }
      } else {
        endResponse(problemResponse('notFound', `There is no resource at ${pathname}`));
      }
    },
  };
}
