import { createHash } from 'node:crypto';
import type { GraphiQLOptions } from 'graphql-yoga';
import { pagePolicy } from './csp.ts';
import type { HttpAnswer, HttpRequest } from './request.ts';
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
};

/**
 * The GraphiQL page runs one inline script (the bundled renderer) and Monaco's editor workers from blob:
 * URLs; the policy allows exactly that script by its hash, inline styles, and requests to this origin.
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

/**
 * GraphiQL at the GraphQL endpoint for a browser (GET or HEAD asking for text/html), from the project's own
 * `@graphql-yoga/render-graphiql` (scripts, styles and editor workers inlined in one page; no CDN). The
 * page is 9 MB and the same for every request: rendered on first use, compressed once, then served with
 * an ETag and cached by browsers for an hour. The queries it sends still need credentials.
 */
export function graphiqlPage(): (request: HttpRequest) => Promise<HttpAnswer> {
  return staticAsset(
    // The renderer module is the 9 MB page itself: loaded when somebody first asks for it, not at start-up.
    async () => {
      const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
      const html = renderGraphiQL(GRAPHIQL_OPTIONS);
      return { body: html, headers: { 'Content-Security-Policy': graphiqlPolicy(html) } };
    },
    {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
      // The same URL answers GraphQL over GET for other Accept values.
      Vary: 'Accept',
    },
  );
}
