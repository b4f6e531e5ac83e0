import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { HttpAnswer, HttpRequest } from './request.ts';

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
  identity: Buffer;
}

/**
 * A file that is the same for every request (the GraphiQL page, the docs bundle, the OpenAPI document):
 * built once, compressed once per encoding (off the event loop), and served with a strong ETag per
 * encoding, `If-None-Match` → 304, and `Vary: Accept-Encoding`. A 9 MB page costs a lookup, not a render.
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

  const bytesOf = (asset: Prepared, encoding: Encoding): Promise<Buffer> => {
    if (encoding === 'identity') return Promise.resolve(asset.identity);
    asset.variants[encoding] ??=
      encoding === 'br'
        ? brotli(asset.identity, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: 5,
              [constants.BROTLI_PARAM_SIZE_HINT]: asset.identity.length,
            },
          })
        : gzipAsync(asset.identity, { level: 6 });
    return asset.variants[encoding]!;
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
    const etag = `"${asset.tag}${encoding === 'identity' ? '' : `-${encoding}`}"`;
    const { headers } = asset;
    const common: Record<string, string> = {
      ...headers,
      ETag: etag,
      Vary: headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding',
    };
    if (matches(request.header('if-none-match'), etag)) return { status: 304, headers: common, body: null };
    const body = await bytesOf(asset, encoding);
    if (encoding !== 'identity') common['Content-Encoding'] = encoding;
    return { status: 200, headers: common, body };
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
