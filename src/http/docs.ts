import { readFile } from 'node:fs/promises';
import { OPENAPI_SECURITY_SCHEME } from '../openapi/security-scheme.ts';
import { problemAnswer } from '../protocol/problem.ts';
import type { HttpAnswer, HttpRequest } from '../protocol/request.ts';
import { pagePolicy } from './csp.ts';
import { staticAsset } from './static-asset.ts';

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
  // Its toolbar (Configure, Share, Deploy) leads to Scalar's hosted services.
  showDeveloperTools: 'never',
  showOperationId: true,
  hideClientButton: false,
  persistAuth: false,
  authentication: { preferredSecurityScheme: OPENAPI_SECURITY_SCHEME },
  documentDownloadType: 'json',
};

const INIT_SCRIPT = `Scalar.createApiReference('#museum-reference', ${JSON.stringify(SCALAR_CONFIGURATION)});\n`;

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
    <div id="museum-reference"></div>
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

export const isDocsPath = (pathname: string) =>
  pathname === DOCS_PATHS.openapi ||
  pathname === DOCS_PATHS.docs ||
  pathname.startsWith(`${DOCS_PATHS.docs}/`);

/**
 * `GET /openapi.json` (the generated OpenAPI 3.1 document) and `GET /docs` (an API reference rendered by
 * Scalar from the project's own dependencies, no CDN), both open without credentials.
 */
export function docsPages(): (request: HttpRequest) => Promise<HttpAnswer> {
  // Each built once and compressed once, served with an ETag; the pages are revalidated on every visit,
  // the bundle kept an hour.
  const assets: Record<string, ReturnType<typeof staticAsset>> = {
    // The generator (zod's JSON Schema, the reference's examples) is loaded on the first request for it.
    [DOCS_PATHS.openapi]: staticAsset(
      async () => {
        const { buildOpenApiDocument } = await import('../openapi/document.ts');
        return { body: JSON.stringify(buildOpenApiDocument(), null, 2) };
      },
      {
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': 'no-cache',
      },
    ),
    [DOCS_PATHS.docs]: staticAsset(() => ({ body: HTML }), {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': DOCS_CSP,
    }),
    [DOCS_PATHS.init]: staticAsset(() => ({ body: INIT_SCRIPT }), {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'no-cache',
    }),
    [DOCS_PATHS.scalar]: staticAsset(async () => ({ body: await readFile(SCALAR_BUNDLE) }), {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
    }),
  };
  assets[`${DOCS_PATHS.docs}/`] = assets[DOCS_PATHS.docs]!;

  return async (request) => {
    const { pathname, method } = request;
    if (method !== 'GET' && method !== 'HEAD')
      return problemAnswer('methodNotAllowed', `${method} is not supported here; use GET`, [], {
        Allow: 'GET, HEAD',
      });
    const asset = assets[pathname];
    if (!asset) return problemAnswer('notFound', `There is no resource at ${pathname}`);
    try {
      return await asset(request);
    } catch {
      return problemAnswer('internal', 'The API reference bundle is not installed');
    }
  };
}
