import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { brotliCompress, constants, createBrotliCompress, gzip } from 'node:zlib';
import type { HttpAnswer, HttpRequest } from '../protocol/request.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

type Encoding = 'br' | 'gzip' | 'identity';

/** The content, and headers that depend on it (a page's script hashes for its CSP). */
export interface Asset {
  body: string | Buffer;
  headers?: Record<string, string>;
}

interface Prepared {
  headers: Record<string, string>;
  tag: string;
  variants: Partial<Record<Encoding, Promise<Buffer>>>;
  /** Brotli at its best, once it is ready (a large asset is served quicker brotli until then). */
  best?: Buffer;
  identity: Buffer;
}

/**
 * Brotli at its best: quality 11 with a 16 MB window, so a bundle's repeats are found across the whole file
 * (GraphiQL's page without its fonts: 1.60 MB at quality 5, 1.37 MB so). It takes ~1.5 s of one core a
 * megabyte, once.
 */
const BEST_BROTLI = {
  [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
  [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
};
/** Up to this size an asset waits for its best brotli before its first answer (under a second). */
const BEST_AT_ONCE = 512 * 1024;
/**
 * The best brotli is fed this much at a time. A process exits only once the task its thread pool is running
 * has ended, and a whole asset handed over at once was one task: a server stopped just after serving the
 * docs bundle (4.3 MB) took 8 s to exit. Fed in pieces, it waits for one piece; the output is the same.
 */
const BEST_PIECE = 256 * 1024;

/**
 * A file that is the same for every request (the GraphiQL page and its script, the docs bundle, the OpenAPI
 * document): built once, compressed once per encoding (off the event loop), and served with a strong ETag
 * per encoding, `If-None-Match` → 304, and `Vary: Accept-Encoding`. A 9 MB page costs a lookup, not a render.
 * Brotli is at its best quality; an asset over 512 KB is served at a quick quality (5) for the seconds its
 * best takes in the background, then at its best, with another ETag (`-br` rather than `-br5`).
 */
export function staticAsset(
  load: () => Asset | Promise<Asset>,
  fixedHeaders: Record<string, string>,
): (request: Pick<HttpRequest, 'method' | 'header'>) => Promise<HttpAnswer> {
  let prepared: Promise<Prepared> | undefined;

  const prepare = async (): Promise<Prepared> => {
    const { body, headers } = await load();
    const identity = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const tag = createHash('sha256').update(identity).digest('base64url').slice(0, 27);
    return { tag, identity, variants: {}, headers: { ...fixedHeaders, ...headers } };
  };

  const sizeHint = (asset: Prepared) => ({ [constants.BROTLI_PARAM_SIZE_HINT]: asset.identity.length });
  const makeBest = (asset: Prepared) => {
    const pieces: Buffer[] = [];
    for (let at = 0; at < asset.identity.length; at += BEST_PIECE)
      pieces.push(asset.identity.subarray(at, at + BEST_PIECE));
    const compressor = createBrotliCompress({ params: { ...BEST_BROTLI, ...sizeHint(asset) } });
    return buffer(Readable.from(pieces).pipe(compressor)).then((best) => {
      asset.best = best;
      return best;
    });
  };

  /** The bytes of `encoding` to send now, and the suffix of their ETag. */
  const bytesOf = async (asset: Prepared, encoding: Encoding): Promise<[Buffer, string]> => {
    if (encoding === 'identity') return [asset.identity, ''];
    if (encoding === 'gzip') {
      asset.variants.gzip ??= gzipAsync(asset.identity, { level: 6 });
      return [await asset.variants.gzip, '-gzip'];
    }
    if (asset.best) return [asset.best, '-br'];
    if (asset.identity.length <= BEST_AT_ONCE) {
      asset.variants.br ??= makeBest(asset);
      return [await asset.variants.br, '-br'];
    }
    if (!asset.variants.br) {
      asset.variants.br = brotli(asset.identity, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 5, ...sizeHint(asset) },
      });
      // The best one after the quick one, so the first answer does not wait behind it.
      void asset.variants.br.then(() => makeBest(asset)).catch(() => {});
    }
    return [await asset.variants.br, '-br5'];
  };

  return async (request) => {
    prepared ??= prepare();
    let asset: Prepared;
    try {
      asset = await prepared;
    } catch (error) {
      prepared = undefined;
      throw error;
    }
    const encoding = chooseEncoding(request.header('accept-encoding'));
    const [bytes, suffix] = await bytesOf(asset, encoding);
    const etag = `"${asset.tag}${suffix}"`;
    const { headers } = asset;
    const common: Record<string, string> = {
      ...headers,
      ETag: etag,
      Vary: headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding',
    };
    if (matches(request.header('if-none-match'), etag)) return { status: 304, headers: common, body: null };
    if (encoding !== 'identity') common['Content-Encoding'] = encoding;
    return { status: 200, headers: common, body: bytes };
  };
}

/** The best encoding the client accepts (RFC 9110 §12.5.3), brotli first; q=0 refuses one. */
function chooseEncoding(header: string | null): Encoding {
  if (!header) return 'identity';
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name.trim(), q ? Number(q.slice(2)) : 1);
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return 'identity';
}

/** `If-None-Match` against a tag, by weak comparison (RFC 9110 §13.1.2): `*`, or any listed tag. */
function matches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === etag);
}
