import { createHash } from 'node:crypto';
import type { GraphiQLOptions } from 'graphql-yoga';
import { problemAnswer } from '../protocol/problem.ts';
import type { HttpAnswer, HttpRequest } from '../protocol/request.ts';
import { pagePolicy } from './csp.ts';
import { staticAsset } from './static-asset.ts';

const GRAPHIQL_EXAMPLE = `# Every query needs HTTP Basic credentials: open "Headers" below and add
# {"Authorization": "Basic <base64 of name:password>"}
query UpcomingWeek {
  museumHours(limit: 5) { date timeOpen timeClose }
  specialEvents { eventId name dates price }
}
`;

// The headers editor accepts JSON with comments: the hint stays a comment, so introspection (open without
// credentials) still loads the schema until real credentials are filled in.
const GRAPHIQL_HEADERS = `{
  // Every query needs HTTP Basic credentials of an account:
  // "Authorization": "Basic <base64 of name:password>"
}
`;

const GRAPHIQL_OPTIONS: GraphiQLOptions = {
  title: 'Museum API — GraphiQL',
  defaultQuery: GRAPHIQL_EXAMPLE,
  headers: GRAPHIQL_HEADERS,
  defaultHeaders: GRAPHIQL_HEADERS,
  // The renderer's default is its logo inlined (150 KB); browsers ask this origin's /favicon.ico anyway.
  favicon: '/favicon.ico',
};

/**
 * The GraphiQL page runs its script from this origin, one inline script (the call that renders it, with the
 * options) and Monaco's editor workers from blob: URLs; the policy allows exactly that inline script by its
 * hash, inline styles, and requests to this origin.
 */
export function graphiqlPolicy(html: string): string {
  const scripts = new Set<string>(["'self'"]);
  for (const match of html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/gi)) {
    const attributes = match[1] ?? '';
    const src = /\ssrc\s*=\s*["']?([^"'\s>]+)/i.exec(attributes)?.[1];
    if (src) {
      if (/^https?:/i.test(src)) scripts.add(new URL(src).origin);
    } else {
      scripts.add(`'sha256-${createHash('sha256').update(match[2]!, 'utf8').digest('base64')}'`);
    }
  }
  const styles = new Set<string>(["'self'", "'unsafe-inline'"]);
  for (const match of html.matchAll(/<link\s[^>]*href\s*=\s*["']?(https?:[^"'\s>]+)/gi))
    styles.add(new URL(match[1]!).origin);
  return pagePolicy(scripts, styles);
}

/** Where the page's script, stylesheet and fonts are served, each under a name made of its content's hash. */
export const GRAPHIQL_ASSETS = '/graphiql/assets/';

type Handler = (request: HttpRequest) => Promise<HttpAnswer>;

interface AssetFile {
  body: string | Buffer;
  type: string;
}

export interface GraphiQLParts {
  /** The page: the stylesheet and the script by URL, and the one inline script that renders GraphiQL. */
  html: string;
  /** By path: the script (the renderer, its editor workers), the stylesheet and each font. */
  assets: Map<string, AssetFile>;
}

const FONT_TYPES: Record<string, string> = {
  woff2: 'woff2',
  woff: 'woff',
  ttf: 'ttf',
  truetype: 'ttf',
  otf: 'otf',
};

/**
 * `@graphql-yoga/render-graphiql` renders one 9 MB page: its stylesheet (with every font inlined, 0.6 MB of
 * base64) and its script inline. Served so, it is 1.95 MB of brotli on every first visit. Split here into
 * files of their own: the stylesheet and the script (cached for a year under their hash's name; the page
 * itself is a few KB), and each font, which a browser fetches only when the page shows characters of its
 * unicode-range (a visit takes Roboto's and Fira Code's Latin subsets and the editor's icons, ~90 KB of
 * the 0.4 MB). Throws when the page is not shaped as expected (a new renderer), so a test notices.
 */
export function splitGraphiQL(rendered: string): GraphiQLParts {
  const assets = new Map<string, AssetFile>();
  const add = (body: string | Buffer, extension: string, type: string) => {
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 20);
    const path = `${GRAPHIQL_ASSETS}${hash}.${extension}`;
    assets.set(path, { body, type });
    return path;
  };
  const style = /<style>([\s\S]*?)<\/style>/.exec(rendered);
  const scriptStart = rendered.indexOf('<script>');
  const scriptEnd = rendered.lastIndexOf('</script>');
  const render = rendered.indexOf('YogaGraphiQL.renderYogaGraphiQL(', scriptStart);
  if (!style || scriptStart < 0 || scriptEnd < render || render < 0)
    throw new Error('The GraphiQL page is not shaped as this module expects: one <style>, one <script>');
  const css = style[1]!.replace(
    /url\((["']?)data:font\/([\w-]+);base64,([A-Za-z0-9+/=]+)\1\)/g,
    (all, _quote: string, format: string, base64: string) => {
      const extension = FONT_TYPES[format];
      if (!extension) return all;
      return `url(${add(Buffer.from(base64, 'base64'), extension, `font/${extension}`)})`;
    },
  );
  const stylesheet = add(css.trim(), 'css', 'text/css; charset=utf-8');
  const script = add(
    rendered.slice(scriptStart + '<script>'.length, render),
    'js',
    'text/javascript; charset=utf-8',
  );
  const html =
    rendered.slice(0, style.index) +
    `<link rel="stylesheet" href="${stylesheet}" />` +
    rendered.slice(style.index + style[0].length, scriptStart) +
    `<script src="${script}"></script>\n      <script>\n        ${rendered.slice(render, scriptEnd).trim()}\n      </script>` +
    rendered.slice(scriptEnd + '</script>'.length);
  return { html, assets };
}

export interface GraphiQLPages {
  /** The page, for a browser that opens the endpoint. */
  page: Handler;
  /** Its files, under GRAPHIQL_ASSETS; a name not among them is a 404. */
  assets: Handler;
}

/**
 * GraphiQL at the GraphQL endpoint for a browser (GET or HEAD asking for text/html), from the project's own
 * `@graphql-yoga/render-graphiql` (no CDN), split by `splitGraphiQL`. Everything is the same for every
 * request: rendered on first use, each file compressed once and served with an ETag; the page is cached by
 * browsers for an hour, its files (named by their hash) for a year. The queries it sends still need
 * credentials.
 */
export function graphiqlPages(): GraphiQLPages {
  // The renderer module is the 9 MB page itself: loaded when somebody first asks for it, not at start-up.
  let parts: Promise<GraphiQLParts> | undefined;
  const load = () => {
    parts ??= import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) =>
      splitGraphiQL(renderGraphiQL(GRAPHIQL_OPTIONS)),
    );
    return parts.catch((error) => {
      parts = undefined;
      throw error;
    });
  };
  const page = staticAsset(
    async () => {
      const { html } = await load();
      return { body: html, headers: { 'Content-Security-Policy': graphiqlPolicy(html) } };
    },
    {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
      // The same URL answers GraphQL over GET for other Accept values.
      Vary: 'Accept',
    },
  );
  const files = new Map<string, ReturnType<typeof staticAsset>>();
  const assets: Handler = async (request) => {
    const { method, pathname } = request;
    if (method !== 'GET' && method !== 'HEAD')
      return problemAnswer('methodNotAllowed', `${method} is not supported here; use GET`, [], {
        Allow: 'GET, HEAD',
      });
    const file = (await load()).assets.get(pathname);
    if (!file) return problemAnswer('notFound', `There is no resource at ${pathname}`);
    let served = files.get(pathname);
    if (!served) {
      served = staticAsset(() => ({ body: file.body }), {
        'Content-Type': file.type,
        'Cache-Control': 'public, max-age=31536000, immutable',
      });
      files.set(pathname, served);
    }
    return served(request);
  };
  return { page, assets };
}
