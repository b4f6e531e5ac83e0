import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { FieldIssue } from '../common/errors.ts';
import { addressOf, type TrustedProxies } from './client-address.ts';
import { parseJsonBody } from './json-body.ts';

/** Request bodies larger than this are refused with 413 before any of them is parsed. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** A request's headers larger than this, together, are refused with 431 before the app sees them. */
export const HEADER_LIMIT_BYTES = 16 * 1024;

/** What one request leaves for its log line and metrics, filled in as it goes. */
export interface Observation {
  requestId: string;
  /** The route template (`/special-events/{eventId}`, `/graphql`), never the raw path. */
  route: string;
  account?: string;
}

// A request id of the client's (or a proxy's) is kept when it is a plain token, so it can be followed.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function observationOf(requestIdHeader: string | null | undefined): Observation {
  const requestId = requestIdHeader && SANE_REQUEST_ID.test(requestIdHeader) ? requestIdHeader : randomUUID();
  return { requestId, route: 'unmatched' };
}

/** One HTTP request as every handler sees it (made from node:http's, src/http/pipeline.ts). */
export interface HttpRequest {
  method: string;
  pathname: string;
  /** The query string without its `?`. */
  search: string;
  /** The URL as the client asked for it (for the few handlers that hand the request on whole). */
  url: string;
  /** A request header by its lower-case name. */
  header(name: string): string | null;
  /** The client's address (src/protocol/client-address.ts), for login throttling. */
  address: string;
  /** The whole body, or null when it is larger than BODY_LIMIT_BYTES. */
  body(): Promise<Uint8Array | null>;
  /** Ends when the client goes away: streams stop, subscriptions give their place back. */
  signal: AbortSignal;
  /** Filled in for the request's log line and metrics: its route template and account. */
  observation: Observation;
}

/** An answer: a whole body, or a stream (server-sent events, multipart/mixed) written as it comes. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | AsyncIterable<string> | null;
}

const isStream = (body: HttpAnswer['body']): body is AsyncIterable<string> =>
  body !== null && typeof body === 'object' && Symbol.asyncIterator in body;

/** The caller of an operation (the engine's `Caller`), as an HTTP request names it. */
export const callerOf = (request: HttpRequest) => ({
  authorization: request.header('authorization'),
  address: request.address,
  idempotencyKey: request.header('idempotency-key'),
});

/** Why a body was refused: 415 (not JSON), 413 (too large) or 400 (not strict JSON). */
export interface BodyRefusal {
  kind: 'unsupportedMediaType' | 'payloadTooLarge' | 'validation';
  detail: string;
  issues: FieldIssue[];
  headers: Record<string, string>;
}

/**
 * The one body reader: a JSON request body, at most BODY_LIMIT_BYTES, application/json (a form or text/plain
 * post, which any web page may send across sites without a preflight, is refused), strict JSON. REST and
 * GraphQL render a refusal each in their own error shape.
 */
export async function readJsonBody(
  request: HttpRequest,
  what: string,
): Promise<{ ok: true; value: unknown; text: string } | ({ ok: false } & BodyRefusal)> {
  const mediaType = request.header('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json')
    return refused('unsupportedMediaType', `${what} must be application/json`);
  const bytes = await request.body();
  if (bytes === null)
    return refused('payloadTooLarge', `The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB`, [], {
      Connection: 'close',
    });
  const parsed = parseJsonBody(bytes);
  if (!parsed.ok) return refused('validation', parsed.detail, [parsed.issue]);
  return { ok: true, value: parsed.value, text: parsed.text };
}

const refused = (
  kind: BodyRefusal['kind'],
  detail: string,
  issues: FieldIssue[] = [],
  headers: Record<string, string> = {},
) => ({ ok: false as const, kind, detail, issues, headers });

const firstValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** A node:http request's header by its lower-case name (repeated ones joined), or null. */
export const headerReader =
  (headers: IncomingHttpHeaders) =>
  (name: string): string | null => {
    const value = headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  };

/** A node:http request as an HttpRequest; its body is read only when a handler asks for it. */
export function fromNode(req: IncomingMessage, res: ServerResponse, trustProxy: TrustedProxies): HttpRequest {
  return new NodeRequest(req, res, trustProxy);
}

/**
 * A class, not an object literal: a getter in a literal gives every request its own hidden class, made in
 * V8's old generation and pointing at the request's closures, which kept every request's objects alive
 * through young-generation collections until the next full one (1–3 MB promoted per scavenge, against
 * ~6 KB without).
 */
class NodeRequest implements HttpRequest {
  readonly method: string;
  readonly pathname: string;
  readonly search: string;
  readonly url: string;
  readonly header: (name: string) => string | null;
  readonly address: string;
  readonly observation: Observation;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  #aborted: AbortController | undefined;

  constructor(req: IncomingMessage, res: ServerResponse, trustProxy: TrustedProxies) {
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const headers = req.headers;
    this.method = req.method ?? 'GET';
    this.pathname = queryAt === -1 ? target : target.slice(0, queryAt);
    this.search = queryAt === -1 ? '' : target.slice(queryAt + 1);
    this.url = `http://${headers.host ?? 'localhost'}${target}`;
    this.header = headerReader(headers);
    this.address = addressOf(req.socket.remoteAddress, headers['x-forwarded-for'], trustProxy);
    this.observation = observationOf(firstValue(headers['x-request-id']));
    this.#req = req;
    this.#res = res;
  }

  body(): Promise<Uint8Array | null> {
    return readNodeBody(this.#req);
  }

  /** Made on first use: only a streamed answer needs to know that the client went away. */
  get signal(): AbortSignal {
    if (!this.#aborted) {
      const controller = new AbortController();
      this.#aborted = controller;
      this.#res.once('close', () => controller.abort());
    }
    return this.#aborted.signal;
  }
}

/** The whole body of a node request, or null as soon as it passes BODY_LIMIT_BYTES (it is not read on). */
function readNodeBody(req: IncomingMessage): Promise<Uint8Array | null> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > BODY_LIMIT_BYTES) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // The listeners go once the body is read, so nothing of it outlives the request through them.
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        done();
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    // A client that goes away mid-body: nobody is left to answer.
    const onAborted = () => onError(new Error('request aborted'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/** Writes an answer to node's response; a stream is piped as it comes (HEAD: headers only). */
export function sendNode(res: ServerResponse, answer: HttpAnswer, head: boolean) {
  const { body } = answer;
  if (isStream(body)) {
    res.writeHead(answer.status, answer.headers);
    res.flushHeaders();
    void pump(body[Symbol.asyncIterator](), res, head);
    return;
  }
  res.writeHead(answer.status, withLength(answer, body));
  res.end(head || body === null ? undefined : body);
}

/** The headers with the body's length; a HEAD answer says the length GET's body has. */
function withLength(answer: HttpAnswer, body: string | Uint8Array | null): Record<string, string> {
  // 204 and 304 carry no Content-Length (RFC 9110 §8.6).
  if (answer.status === 204 || answer.status === 304) return answer.headers;
  const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  answer.headers['Content-Length'] = String(length);
  return answer.headers;
}

/**
 * Writes a stream's chunks as they come. A client that goes away aborts the request's signal, which ends the
 * stream's source (a subscription gives its place back), and ends the stream; nothing is written after the
 * connection closed.
 */
async function pump(chunks: AsyncIterator<string>, res: ServerResponse, head: boolean) {
  const end = () => void chunks.return?.().catch(() => {});
  if (head) {
    end();
    res.end();
    return;
  }
  res.once('close', end);
  try {
    for (;;) {
      const { done, value } = await chunks.next();
      if (done || res.destroyed) break;
      res.write(value);
    }
    if (!res.destroyed) res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', end);
  }
}
