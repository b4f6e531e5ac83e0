// A Stripe look-alike on 127.0.0.1 for tests: Checkout Sessions (create, retrieve, expire), refunds against
// the payment a test says was made, idempotent POSTs, and signed webhook events. The service under test talks
// to it with the real `stripe` SDK (`host: '127.0.0.1', port, protocol: 'http'`), so nothing leaves the machine.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Stripe from 'stripe';

/** A form value after expansion: `a[b][0]=x` becomes `{ a: { b: ['x'] } }`. */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

/** The fields of a Checkout Session this fake fills in (a subset of `Stripe.Checkout.Session`). */
export interface CheckoutSession {
  id: string;
  object: 'checkout.session';
  url: string | null;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'paid' | 'unpaid' | 'no_payment_required';
  client_reference_id: string | null;
  metadata: Record<string, string>;
  amount_total: number;
  amount_subtotal: number;
  currency: string;
  expires_at: number;
  mode: 'payment';
  success_url: string;
  cancel_url: string | null;
  payment_intent: string | null;
  created: number;
  livemode: false;
}

/** The fields of a Refund this fake fills in (a subset of `Stripe.Refund`). */
export interface Refund {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  payment_intent: string;
  charge: null;
  reason: string | null;
  status: 'succeeded';
  created: number;
  metadata: Record<string, string>;
}

export type CheckoutSessionEventType =
  | 'checkout.session.completed'
  | 'checkout.session.expired'
  | 'checkout.session.async_payment_succeeded'
  | 'checkout.session.async_payment_failed';

/** A v1 ("snapshot") event as Stripe POSTs it to a webhook endpoint. */
export interface StripeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  livemode: false;
  // `string & {}` keeps the editor's suggestions while letting a test send any other type.
  type: CheckoutSessionEventType | (string & {});
  data: { object: CheckoutSession };
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
}

export interface StripeCall {
  method: string;
  /** Without the query string. */
  path: string;
  idempotencyKey: string | null;
  /** The expanded form body (for a GET, the expanded query). */
  body: FormObject;
}

export interface StripeServer {
  url: string;
  port: number;
  sessions: Map<string, CheckoutSession>;
  /** Every refund made, in order; a replayed idempotent request adds none. */
  refunds: Refund[];
  /** Every request received, including those failed, hung or refused. */
  calls: StripeCall[];
  /**
   * The customer pays: the open session becomes `complete` with `paymentStatus` (default `paid`) and gets a new
   * PaymentIntent of `amount_total`, which refunds can then be made against (only when paid).
   */
  pay(sessionId: string, options?: { paymentStatus?: 'paid' | 'unpaid' }): CheckoutSession;
  /** The next `count` requests whose path starts with `pathPrefix` answer `status` with an `api_error`. */
  failNext(pathPrefix: string, count: number, status?: number): void;
  /** The next `count` requests whose path starts with `pathPrefix` are never answered (until `close`). */
  hangNext(pathPrefix: string, count: number): void;
  /** A Stripe Event carrying a snapshot of `session`. */
  event(type: StripeEvent['type'], session: CheckoutSession): StripeEvent;
  close(): Promise<void>;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(prefix: string, length = 24) {
  let id = prefix;
  for (const byte of randomBytes(length)) id += ALPHABET[byte % ALPHABET.length];
  return id;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Expands Stripe's form encoding (`line_items[0][price_data][currency]=eur`, `metadata[orderId]=7`,
 * `expand[]=x`) into nested objects; an object whose keys are all indexes becomes an array.
 */
export function expandForm(text: string): FormObject {
  const root: FormObject = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const head = /^[^[]*/.exec(name)?.[0] ?? '';
    const keys = [head, ...Array.from(name.slice(head.length).matchAll(/\[([^\]]*)\]/g), (m) => m[1] ?? '')];
    // Keys reach plain objects, so none may name the prototype.
    if (keys.some((key) => key === '__proto__' || key === 'constructor' || key === 'prototype')) continue;
    let node = root;
    for (const [i, rawKey] of keys.entries()) {
      // `a[]=x` appends.
      const key = rawKey === '' && i > 0 ? String(Object.keys(node).length) : rawKey;
      if (i === keys.length - 1) {
        node[key] = value;
        break;
      }
      const next = node[key];
      if (typeof next === 'object' && !Array.isArray(next)) node = next;
      else {
        const child: FormObject = {};
        node[key] = child;
        node = child;
      }
    }
  }
  return arraysFromIndexes(root) as FormObject;
}

function arraysFromIndexes(value: FormValue): FormValue {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  for (const key of keys) value[key] = arraysFromIndexes(value[key]!);
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key)))
    return keys.sort((a, b) => Number(a) - Number(b)).map((key) => value[key]!);
  return value;
}

/** Stable JSON (sorted keys), to tell whether two requests carried the same parameters. */
function canonical(value: FormValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key]!)}`).join(',')}}`;
}

interface StripeErrorBody {
  type: 'invalid_request_error' | 'api_error' | 'idempotency_error';
  message: string;
  code?: string;
  param?: string;
}

interface Answer {
  status: number;
  body: string;
  /**
   * Whether an idempotency key keeps this answer. Stripe keeps a result only once the endpoint started
   * executing: not for a refused key, bad parameters, or a failure the test injected (so the SDK's retry,
   * with the same key, acts).
   */
  keep: boolean;
}

const ok = (object: unknown): Answer => ({ status: 200, body: JSON.stringify(object), keep: true });

function failure(status: number, error: StripeErrorBody, keep = true): Answer {
  return { status, body: JSON.stringify({ error }), keep };
}

/** A parameter the request got wrong: nothing executed, so nothing is kept for its idempotency key. */
function badParam(param: string, message: string, code?: string): Answer {
  return failure(400, { type: 'invalid_request_error', message, param, ...(code ? { code } : {}) }, false);
}

const missing = (param: string) => badParam(param, `Missing required param: ${param}.`, 'parameter_missing');

const asString = (value: FormValue | undefined) => (typeof value === 'string' ? value : undefined);
const asObject = (value: FormValue | undefined) =>
  typeof value === 'object' && !Array.isArray(value) ? value : undefined;

/** A whole number from a form field, or undefined. */
function asInteger(value: FormValue | undefined) {
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : undefined;
}

function asMetadata(value: FormValue | undefined): Record<string, string> | Answer {
  // Stripe reads `metadata=` (empty) as "no metadata".
  if (value === undefined || value === '') return {};
  const object = asObject(value);
  if (!object) return badParam('metadata', 'Invalid object');
  const metadata: Record<string, string> = {};
  for (const [key, entry] of Object.entries(object)) {
    if (typeof entry !== 'string') return badParam(`metadata[${key}]`, 'Metadata values must be strings.');
    metadata[key] = entry;
  }
  return metadata;
}

const isAnswer = (value: unknown): value is Answer =>
  typeof value === 'object' && value !== null && 'status' in value && 'keep' in value;

interface PaymentIntent {
  id: string;
  amount: number;
  currency: string;
  refunded: number;
  succeeded: boolean;
}

interface Rule {
  prefix: string;
  left: number;
  status: number;
}

interface Kept {
  method: string;
  path: string;
  params: string;
  answer: Answer;
}

export async function startStripeServer({ secretKey }: { secretKey: string }): Promise<StripeServer> {
  const sessions = new Map<string, CheckoutSession>();
  const paymentIntents = new Map<string, PaymentIntent>();
  const refunds: Refund[] = [];
  const calls: StripeCall[] = [];
  const failRules: Rule[] = [];
  const hangRules: Rule[] = [];
  const kept = new Map<string, Kept>();

  /** Takes one from the first rule matching `path`, if any. */
  const take = (rules: Rule[], path: string) => {
    const rule = rules.find((r) => r.left > 0 && path.startsWith(r.prefix));
    if (rule) rule.left -= 1;
    return rule;
  };

  function createSession(params: FormObject): Answer {
    const mode = asString(params.mode);
    if (mode === undefined) return missing('mode');
    if (mode !== 'payment')
      return badParam('mode', `This fake Stripe supports only mode=payment, not '${mode}'.`);
    const successUrl = asString(params.success_url);
    if (successUrl === undefined) return missing('success_url');
    if (!URL.canParse(successUrl)) return badParam('success_url', 'Not a valid URL', 'url_invalid');
    const cancelUrl = asString(params.cancel_url) ?? null;
    if (cancelUrl !== null && !URL.canParse(cancelUrl))
      return badParam('cancel_url', 'Not a valid URL', 'url_invalid');

    const lineItems = params.line_items;
    if (lineItems === undefined) return missing('line_items');
    if (!Array.isArray(lineItems) || lineItems.length === 0)
      return badParam('line_items', 'line_items must be a non-empty array.');
    let total = 0;
    const currencies = new Set<string>();
    for (const [i, raw] of lineItems.entries()) {
      const at = `line_items[${i}]`;
      const item = asObject(raw);
      if (!item) return badParam(at, 'Invalid object');
      const quantity = asInteger(item.quantity);
      if (item.quantity === undefined) return missing(`${at}[quantity]`);
      if (quantity === undefined || quantity < 1)
        return badParam(`${at}[quantity]`, 'This value must be greater than or equal to 1.');
      const priceData = asObject(item.price_data);
      if (!priceData)
        return item.price !== undefined
          ? badParam(`${at}[price]`, 'This fake Stripe knows no prices; send price_data.')
          : missing(`${at}[price_data]`);
      const currency = asString(priceData.currency)?.toLowerCase();
      if (currency === undefined) return missing(`${at}[price_data][currency]`);
      if (!/^[a-z]{3}$/.test(currency))
        return badParam(`${at}[price_data][currency]`, `Invalid currency: ${currency}.`);
      const unitAmount = asInteger(priceData.unit_amount);
      if (priceData.unit_amount === undefined) return missing(`${at}[price_data][unit_amount]`);
      if (unitAmount === undefined || unitAmount < 0)
        return badParam(`${at}[price_data][unit_amount]`, 'This value must be greater than or equal to 0.');
      const productData = asObject(priceData.product_data);
      if (!productData) return missing(`${at}[price_data][product_data]`);
      const name = asString(productData.name);
      if (!name) return missing(`${at}[price_data][product_data][name]`);
      currencies.add(currency);
      total += unitAmount * quantity;
    }
    if (currencies.size > 1)
      return badParam('line_items', 'All line items in a Checkout Session must have the same currency.');
    const [currency] = currencies;

    const created = nowSeconds();
    let expiresAt = created + 24 * 3600;
    if (params.expires_at !== undefined) {
      const asked = asInteger(params.expires_at);
      if (asked === undefined) return badParam('expires_at', `Invalid integer: ${String(params.expires_at)}`);
      if (asked - created < 30 * 60)
        return badParam(
          'expires_at',
          'The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.',
        );
      if (asked - created > 24 * 3600)
        return badParam(
          'expires_at',
          'The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.',
        );
      expiresAt = asked;
    }
    const metadata = asMetadata(params.metadata);
    if (isAnswer(metadata)) return metadata;

    const id = randomId('cs_test_', 58);
    const session: CheckoutSession = {
      id,
      object: 'checkout.session',
      url: `https://checkout.stripe.com/c/pay/${id}`,
      status: 'open',
      payment_status: 'unpaid',
      client_reference_id: asString(params.client_reference_id) || null,
      metadata,
      amount_total: total,
      amount_subtotal: total,
      currency: currency!,
      expires_at: expiresAt,
      mode: 'payment',
      success_url: successUrl,
      cancel_url: cancelUrl,
      payment_intent: null,
      created,
      livemode: false,
    };
    sessions.set(id, session);
    return ok(session);
  }

  const noSuchSession = (id: string) =>
    failure(404, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      param: 'session',
      message: `No such checkout.session: '${id}'`,
    });

  function expireSession(id: string): Answer {
    const session = sessions.get(id);
    if (!session) return noSuchSession(id);
    if (session.status !== 'open')
      return failure(400, {
        type: 'invalid_request_error',
        message: 'Only Checkout Sessions with a status of `open` can be expired.',
      });
    session.status = 'expired';
    // Stripe drops the hosted page's address once the session can no longer be paid.
    session.url = null;
    return ok(session);
  }

  function createRefund(params: FormObject): Answer {
    const intentId = asString(params.payment_intent);
    if (intentId === undefined)
      return params.charge !== undefined
        ? badParam('charge', 'This fake Stripe refunds only by payment_intent.')
        : missing('payment_intent');
    let amount: number | undefined;
    if (params.amount !== undefined) {
      amount = asInteger(params.amount);
      if (amount === undefined) return badParam('amount', `Invalid integer: ${String(params.amount)}`);
      if (amount < 1) return badParam('amount', 'This value must be greater than or equal to 1.');
    }
    const metadata = asMetadata(params.metadata);
    if (isAnswer(metadata)) return metadata;
    const reason = asString(params.reason) ?? null;
    if (reason !== null && !['duplicate', 'fraudulent', 'requested_by_customer'].includes(reason))
      return badParam(
        'reason',
        `Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer`,
      );

    const intent = paymentIntents.get(intentId);
    if (!intent)
      return failure(404, {
        type: 'invalid_request_error',
        code: 'resource_missing',
        param: 'payment_intent',
        message: `No such payment_intent: '${intentId}'`,
      });
    if (!intent.succeeded)
      return failure(400, {
        type: 'invalid_request_error',
        message: `This PaymentIntent (${intentId}) does not have a successful charge to refund.`,
      });
    const remaining = intent.amount - intent.refunded;
    if (remaining === 0)
      return failure(400, {
        type: 'invalid_request_error',
        code: 'charge_already_refunded',
        message: `The charge of PaymentIntent ${intentId} has already been refunded.`,
      });
    const refunded = amount ?? remaining;
    if (refunded > remaining)
      return failure(400, {
        type: 'invalid_request_error',
        code: 'amount_too_large',
        param: 'amount',
        message: `Refund amount (${refunded}) is greater than unrefunded amount on charge (${remaining}).`,
      });
    intent.refunded += refunded;
    const refund: Refund = {
      id: randomId('re_'),
      object: 'refund',
      amount: refunded,
      currency: intent.currency,
      payment_intent: intentId,
      charge: null,
      reason,
      status: 'succeeded',
      created: nowSeconds(),
      metadata,
    };
    refunds.push(refund);
    return ok(refund);
  }

  function route(method: string, path: string, params: FormObject): Answer {
    if (path === '/v1/checkout/sessions' && method === 'POST') return createSession(params);
    if (path === '/v1/refunds' && method === 'POST') return createRefund(params);
    const [, id, action, ...more] =
      /^\/v1\/checkout\/sessions\/([^/]+)(?:\/([^/]+))?(\/.*)?$/.exec(path) ?? [];
    const sessionId = id === undefined ? undefined : safeDecode(id);
    if (sessionId !== undefined && more.every((part) => part === undefined)) {
      if (action === undefined && method === 'GET') {
        const session = sessions.get(sessionId);
        return session ? ok(session) : noSuchSession(sessionId);
      }
      if (action === 'expire' && method === 'POST') return expireSession(sessionId);
    }
    return failure(
      404,
      { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` },
      false,
    );
  }

  function authenticate(authorization: string | undefined): Answer | undefined {
    if (!authorization)
      return failure(
        401,
        {
          type: 'invalid_request_error',
          message:
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
        },
        false,
      );
    const key = /^Bearer (.+)$/.exec(authorization)?.[1];
    if (key !== secretKey)
      return failure(
        401,
        {
          type: 'invalid_request_error',
          message: `Invalid API Key provided: ${(key ?? '').slice(0, 8)}****${(key ?? '').slice(-4)}`,
        },
        false,
      );
    return undefined;
  }

  /** What the request is answered, and whether it is a replay of a kept answer. */
  function handle(req: IncomingMessage, path: string, params: FormObject, rawBody: string) {
    const method = req.method ?? 'GET';
    const refused = authenticate(req.headers.authorization);
    if (refused) return { answer: refused, replayed: false };
    const contentType = req.headers['content-type'] ?? '';
    if (rawBody !== '' && !contentType.startsWith('application/x-www-form-urlencoded'))
      return {
        answer: failure(
          400,
          {
            type: 'invalid_request_error',
            message: `Invalid request: unsupported Content-Type ${contentType}.`,
          },
          false,
        ),
        replayed: false,
      };
    const key = method === 'POST' ? headerValue(req.headers['idempotency-key']) : null;
    if (key === null) return { answer: route(method, path, params), replayed: false };
    const previous = kept.get(key);
    if (previous) {
      if (previous.method !== method || previous.path !== path)
        return {
          answer: failure(
            400,
            {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${previous.method} ${previous.path}' vs '${method} ${path}'). Try using a key other than '${key}' if you meant to execute a different request.`,
            },
            false,
          ),
          replayed: false,
        };
      if (previous.params !== canonical(params))
        return {
          answer: failure(
            400,
            {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            },
            false,
          ),
          replayed: false,
        };
      return { answer: previous.answer, replayed: true };
    }
    const answer = route(method, path, params);
    if (answer.keep) kept.set(key, { method, path, params: canonical(params), answer });
    return { answer, replayed: false };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const target = new URL(req.url ?? '/', 'http://127.0.0.1');
      const path = target.pathname;
      const params = expandForm(req.method === 'GET' ? target.search.slice(1) : rawBody);
      const idempotencyKey = headerValue(req.headers['idempotency-key']);
      calls.push({ method: req.method ?? 'GET', path, idempotencyKey, body: params });

      // Read and left alone: the socket is only destroyed by `close`.
      if (take(hangRules, path)) return;
      const failed = take(failRules, path);
      if (failed) {
        const answer = failure(
          failed.status,
          { type: 'api_error', message: 'An unknown error occurred (injected by the test).' },
          false,
        );
        send(res, answer, { idempotencyKey, stripeVersion: req.headers['stripe-version'], replayed: false });
        return;
      }
      const { answer, replayed } = handle(req, path, params, rawBody);
      send(res, answer, { idempotencyKey, stripeVersion: req.headers['stripe-version'], replayed });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    sessions,
    refunds,
    calls,
    pay(sessionId, { paymentStatus = 'paid' } = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no checkout session ${sessionId}`);
      if (session.status !== 'open') throw new Error(`checkout session ${sessionId} is ${session.status}`);
      const intent: PaymentIntent = {
        id: randomId('pi_'),
        amount: session.amount_total,
        currency: session.currency,
        refunded: 0,
        succeeded: paymentStatus === 'paid',
      };
      paymentIntents.set(intent.id, intent);
      session.status = 'complete';
      session.payment_status = paymentStatus;
      session.payment_intent = intent.id;
      session.url = null;
      return session;
    },
    failNext(prefix, count, status = 500) {
      failRules.push({ prefix, left: count, status });
    },
    hangNext(prefix, count) {
      hangRules.push({ prefix, left: count, status: 0 });
    },
    event(type, session) {
      return {
        id: randomId('evt_'),
        object: 'event',
        api_version: Stripe.API_VERSION,
        created: nowSeconds(),
        livemode: false,
        type,
        // A snapshot: later changes to the session do not reach an event already built.
        data: { object: structuredClone(session) },
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
      };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function safeDecode(part: string) {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function send(
  res: ServerResponse,
  answer: Answer,
  context: { idempotencyKey: string | null; stripeVersion: string | string[] | undefined; replayed: boolean },
) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'request-id': randomId('req_', 14),
    'stripe-version': headerValue(context.stripeVersion) ?? Stripe.API_VERSION,
  };
  if (context.idempotencyKey !== null) headers['idempotency-key'] = context.idempotencyKey;
  if (context.replayed) headers['idempotent-replayed'] = 'true';
  res.writeHead(answer.status, headers);
  res.end(answer.body);
}

/**
 * A webhook POST as Stripe would send `event`: the JSON body and a `Stripe-Signature` made with the SDK's own
 * test signer, so `stripe.webhooks.constructEvent(body, header, webhookSecret)` accepts it. `timestamp` (Unix
 * seconds, default now) lets a test send a stale one.
 */
export function signedEventRequest(
  event: StripeEvent,
  webhookSecret: string,
  { timestamp }: { timestamp?: number } = {},
): { body: string; headers: { 'content-type': 'application/json'; 'stripe-signature': string } } {
  // Stripe sends its events pretty-printed; the signature covers the exact bytes.
  const body = JSON.stringify(event, null, 2);
  const signature = Stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret: webhookSecret,
    timestamp: timestamp ?? nowSeconds(),
  });
  return { body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } };
}
