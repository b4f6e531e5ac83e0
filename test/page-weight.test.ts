// What a browser downloads to open GraphiQL and the API reference, compressed as the service sends it
// (brotli): under 1.5 MB each (issue 26). A size, not a timing.
import { describe, expect, it } from 'vitest';
import { useMuseum } from './support/use-museum.ts';

const LIMIT = 1.5 * 1024 * 1024;
const BROTLI = { 'accept-encoding': 'gzip, deflate, br' };

describe('page weight on the wire (brotli)', () => {
  const museum = useMuseum();

  /** The bytes sent for `path` once its best brotli is ready (a large file is served quicker brotli first). */
  async function wire(path: string, headers: Record<string, string> = {}) {
    for (const deadline = Date.now() + 150_000; ; ) {
      const response = await museum.fetch(`http://museum.test${path}`, {
        headers: { ...BROTLI, ...headers },
      });
      // fetch decodes brotli; Content-Length is what crossed the wire.
      await response.arrayBuffer();
      const bytes = Number(response.headers.get('content-length'));
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-encoding'), path).toBe('br');
      if (!response.headers.get('etag')!.endsWith('-br5"')) return { bytes, response };
      if (Date.now() > deadline) throw new Error(`${path}: still quick brotli`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** The body of `path`, decoded. */
  const text = async (path: string, headers: Record<string, string> = {}) =>
    (await museum.fetch(`http://museum.test${path}`, { headers })).text();

  it('GraphiQL: the page, its script and stylesheet and the fonts a Latin page uses', async () => {
    const html = await text('/graphql', { accept: 'text/html' });
    const script = /<script src="([^"]+)"><\/script>/.exec(html)![1]!;
    const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(html)![1]!;
    const css = await text(stylesheet);
    // The fonts a page of Latin text loads: every @font-face whose unicode-range covers "A" (or has none:
    // the editor's icons). Cyrillic, Greek and Vietnamese subsets are fetched only for such text.
    const fonts = [...css.matchAll(/@font-face\s*\{([^}]*)\}/g)]
      .filter(([, face]) => {
        const range = /unicode-range:([^;}]*)/.exec(face!)?.[1];
        if (!range) return true;
        return range.split(',').some((part) => {
          const [from, to = from] = part.trim().replace(/^U\+/i, '').split('-');
          return Number.parseInt(from!, 16) <= 0x41 && 0x41 <= Number.parseInt(to!, 16);
        });
      })
      .map(([face]) => /url\(([^)]+)\)/.exec(face!)![1]!);
    expect(fonts.length).toBeGreaterThanOrEqual(5);

    const sizes: Record<string, number> = {
      page: (await wire('/graphql', { accept: 'text/html' })).bytes,
      script: (await wire(script)).bytes,
      stylesheet: (await wire(stylesheet)).bytes,
      fonts: 0,
    };
    for (const font of new Set(fonts)) sizes.fonts! += (await wire(font)).bytes;
    const total = Object.values(sizes).reduce((sum, size) => sum + size, 0);
    console.log('GraphiQL on the wire (bytes):', { ...sizes, total });
    expect(total).toBeLessThan(LIMIT);

    // The script and stylesheet are named by their content: cached for a year.
    const cached = (await wire(script)).response;
    expect(cached.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(cached.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  }, 240_000);

  it('/docs: the page, its scripts and the OpenAPI document', async () => {
    const html = await text('/docs');
    const scripts = [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((match) => match[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    const sizes: Record<string, number> = {
      page: (await wire('/docs')).bytes,
      'openapi.json': (await wire('/openapi.json')).bytes,
    };
    for (const script of scripts) sizes[script] = (await wire(script)).bytes;
    const total = Object.values(sizes).reduce((sum, size) => sum + size, 0);
    console.log('/docs on the wire (bytes):', { ...sizes, total });
    expect(total).toBeLessThan(LIMIT);
  }, 240_000);

  it('answers an unknown GraphiQL file 404 and other methods 405, as problems', async () => {
    const missing = await museum.request('GET', '/graphiql/assets/nothing.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    const post = await museum.request('POST', '/graphiql/assets/nothing.js', { body: {} });
    expect(post.status).toBe(405);
  });
});

describe('GraphiQL turned off', () => {
  const museum = useMuseum({ GRAPHIQL: 'false' });

  it('serves none of its files', async () => {
    const html = await (
      await museum.fetch('http://museum.test/graphql', { headers: { accept: 'text/html' } })
    ).text();
    expect(html).not.toContain('/graphiql/assets/');
    expect((await museum.request('GET', '/graphiql/assets/nothing.js')).status).toBe(404);
  });
});
