/** One row of the REST table (routes.ts): an operation of the REST surface and how it maps onto GraphQL. */
export interface Route {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A URLPattern pathname; its named groups become variables of the same name. */
  path: string;
  /**
   * Query parameters the operation reads, each becoming the variable of the same name (an integer where the
   * document declares the variable `Int`).
   */
  query?: string[];
  /** The JSON request body becomes the `input` variable. */
  body?: true;
  /** Request headers the operation reads, by variable name (`ifMatch: 'if-match'`), when sent. */
  headers?: Record<string, string>;
  /**
   * The root field's `version` is the resource's entity tag: sent as `ETag` (and compared with
   * `If-None-Match`) instead of a digest of the body, and left out of the body.
   */
  etag?: 'version';
  document: string;
  status: 200 | 201 | 202 | 204;
  /** Where a created resource lives, for `Location`. */
  location?: (result: Record<string, unknown>) => string;
  /** Answer for a root field that came back null. */
  notFound?: string;
  /** A body other than JSON, made from the root field's value. */
  produces?: {
    contentType: string;
    render: (result: Record<string, unknown>) => Promise<Uint8Array<ArrayBuffer>>;
  };
  /**
   * The body fields beyond the reference's: the document's `$beyondReference: Boolean!` is true when the body
   * gives one of them, and the fields the reference does not answer are selected only then
   * (`@include(if: $beyondReference)`), so that a client of the reference gets exactly the reference's answer.
   */
  beyondReference?: string[];
  /**
   * The document's `$payments: Boolean!` is whether the museum takes payment (MUSEUM_PAYMENTS is not `none`):
   * an order's payment fields are selected only then, so that a museum without payments answers as before.
   */
  payments?: true;
  /** One more media type the JSON answer can be sent in, when `Accept` prefers it (a report as CSV). */
  alternative?: {
    contentType: string;
    render: (result: Record<string, unknown>, variables: Record<string, unknown>) => string;
  };
  /**
   * Who may keep the answer. Default: reads `private, no-cache` (every read needs credentials, so no shared
   * cache may keep one, and a browser asks again before reusing it); writes `no-store`.
   */
  cacheControl?: 'no-store';
  /**
   * A paged list, answered with RFC 8288 `Link` headers: `true` when the root field is the list (and
   * `X-Total-Count` when the operation also selects `total`), `'items'` when it is a page `{items, total}`.
   */
  paged?: true | 'items';
}

/** The paging query parameters of a paged list's route. */
export const PAGE_QUERY = ['page', 'limit'];
