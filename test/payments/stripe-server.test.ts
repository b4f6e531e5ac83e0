// The fake Stripe of test/support/stripe-server.ts, driven through the real `stripe` SDK: if the SDK reads
// its answers as it reads Stripe's, tests of the payment flow can trust it.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expandForm,
  type StripeServer,
  signedEventRequest,
  startStripeServer,
} from '../support/stripe-server.ts';

const SECRET_KEY = 'sk_test_fake_museum';
const WEBHOOK_SECRET = 'whsec_fake_museum';

let fake: StripeServer;
let stripe: Stripe;

/** A client of the fake, as the service will make one. */
const client = (config: { maxNetworkRetries?: number; timeout?: number; key?: string } = {}) =>
  new Stripe(config.key ?? SECRET_KEY, {
    host: '127.0.0.1',
    port: fake.port,
    protocol: 'http',
    ...(config.maxNetworkRetries === undefined ? {} : { maxNetworkRetries: config.maxNetworkRetries }),
    ...(config.timeout === undefined ? {} : { timeout: config.timeout }),
  });

beforeAll(async () => {
  fake = await startStripeServer({ secretKey: SECRET_KEY });
  stripe = client();
});
afterAll(() => fake.close());

const inMinutes = (minutes: number) => Math.floor(Date.now() / 1000) + minutes * 60;

const sessionParams = (overrides: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
  ({
    mode: 'payment',
    success_url: 'https://museum.example/orders/7/paid?session={CHECKOUT_SESSION_ID}',
    cancel_url: 'https://museum.example/orders/7/cancelled',
    client_reference_id: 'order-7',
    metadata: { orderId: 'order-7' },
    expires_at: inMinutes(45),
    line_items: [
      {
        quantity: 2,
        price_data: { currency: 'eur', unit_amount: 1500, product_data: { name: 'Adult ticket' } },
      },
      {
        quantity: 1,
        price_data: { currency: 'eur', unit_amount: 800, product_data: { name: 'Child ticket' } },
      },
    ],
    ...overrides,
  }) satisfies Stripe.Checkout.SessionCreateParams;

/** The error `promise` rejects with (failing the test if it resolves). */
async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error as InstanceType<typeof Stripe.errors.StripeError>;
  }
  throw new Error('expected the call to fail');
}

describe('the form expander', () => {
  it('nests brackets into objects and indexes into arrays', () => {
    expect(
      expandForm(
        'mode=payment&line_items[0][price_data][currency]=eur&line_items[1][quantity]=2&line_items[0][quantity]=1' +
          '&metadata%5BorderId%5D=a%20b&expand[]=x&expand[]=y&__proto__[polluted]=1',
      ),
    ).toEqual({
      mode: 'payment',
      line_items: [{ price_data: { currency: 'eur' }, quantity: '1' }, { quantity: '2' }],
      metadata: { orderId: 'a b' },
      expand: ['x', 'y'],
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('Checkout Sessions', () => {
  it('creates a session with the fields Stripe answers', async () => {
    const params = sessionParams();
    const session = await stripe.checkout.sessions.create(params);
    expect(session.id).toMatch(/^cs_test_[A-Za-z0-9]+$/);
    expect(session).toMatchObject({
      object: 'checkout.session',
      url: `https://checkout.stripe.com/c/pay/${session.id}`,
      status: 'open',
      payment_status: 'unpaid',
      client_reference_id: 'order-7',
      metadata: { orderId: 'order-7' },
      amount_total: 3800,
      amount_subtotal: 3800,
      currency: 'eur',
      expires_at: params.expires_at,
      mode: 'payment',
      success_url: params.success_url,
      cancel_url: params.cancel_url,
      payment_intent: null,
      livemode: false,
    });
    expect(Math.abs(session.created - Date.now() / 1000)).toBeLessThan(5);
    expect(fake.sessions.get(session.id)).toEqual({ ...session, lastResponse: undefined });

    const call = fake.calls.at(-1)!;
    expect(call).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions' });
    // The SDK keys every POST, so a retry of its own is safe.
    expect(call.idempotencyKey).toMatch(/^stripe-node-retry-/);
    expect(call.body).toMatchObject({ line_items: [{ quantity: '2' }, { quantity: '1' }] });
  });

  it('defaults expires_at to 24 hours and refuses one under 30 minutes or over 24 hours', async () => {
    const session = await stripe.checkout.sessions.create(sessionParams({ expires_at: undefined }));
    expect(session.expires_at - session.created).toBe(24 * 3600);

    for (const expiresAt of [inMinutes(10), inMinutes(25 * 60)]) {
      const error = await rejection(
        stripe.checkout.sessions.create(sessionParams({ expires_at: expiresAt })),
      );
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(error).toMatchObject({
        statusCode: 400,
        type: 'StripeInvalidRequestError',
        param: 'expires_at',
      });
      expect(error.message).toMatch(/expires_at/);
    }
  });

  it('refuses line items in two currencies, a missing success_url, and another mode', async () => {
    const twoCurrencies = sessionParams();
    twoCurrencies.line_items[1]!.price_data!.currency = 'usd';
    expect(await rejection(stripe.checkout.sessions.create(twoCurrencies))).toMatchObject({
      type: 'StripeInvalidRequestError',
      param: 'line_items',
    });
    expect(
      await rejection(stripe.checkout.sessions.create({ ...sessionParams(), success_url: undefined })),
    ).toMatchObject({ type: 'StripeInvalidRequestError', param: 'success_url', code: 'parameter_missing' });
    expect(
      await rejection(stripe.checkout.sessions.create({ ...sessionParams(), mode: 'subscription' })),
    ).toMatchObject({ type: 'StripeInvalidRequestError', param: 'mode' });
  });

  it('refuses a wrong secret key with 401', async () => {
    const error = await rejection(client({ key: 'sk_test_wrong' }).checkout.sessions.create(sessionParams()));
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(error.statusCode).toBe(401);
  });

  it('retrieves a session, and answers 404 resource_missing for an unknown one', async () => {
    const created = await stripe.checkout.sessions.create(sessionParams());
    const retrieved = await stripe.checkout.sessions.retrieve(created.id);
    expect({ ...retrieved, lastResponse: undefined }).toEqual({ ...created, lastResponse: undefined });

    const error = await rejection(stripe.checkout.sessions.retrieve('cs_test_nothing'));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('expires an open session, and refuses to expire one that is no longer open', async () => {
    const open = await stripe.checkout.sessions.create(sessionParams());
    const expired = await stripe.checkout.sessions.expire(open.id);
    expect(expired).toMatchObject({ id: open.id, status: 'expired', payment_status: 'unpaid' });
    expect((await stripe.checkout.sessions.retrieve(open.id)).status).toBe('expired');

    const paid = await stripe.checkout.sessions.create(sessionParams());
    fake.pay(paid.id);
    const error = await rejection(stripe.checkout.sessions.expire(paid.id));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error.message).toBe('Only Checkout Sessions with a status of `open` can be expired.');
    expect((await stripe.checkout.sessions.retrieve(paid.id)).status).toBe('complete');
  });
});

describe('payments and refunds', () => {
  it('pays a session, refunds it in two parts, and refuses more than what remains', async () => {
    const { id } = await stripe.checkout.sessions.create(sessionParams());
    const paid = fake.pay(id);
    expect(paid).toMatchObject({ status: 'complete', payment_status: 'paid' });
    expect(paid.payment_intent).toMatch(/^pi_/);
    const retrieved = await stripe.checkout.sessions.retrieve(id);
    expect(retrieved).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      payment_intent: paid.payment_intent,
    });
    const paymentIntent = paid.payment_intent!;

    const first = await stripe.refunds.create({ payment_intent: paymentIntent, amount: 1500 });
    expect(first).toMatchObject({
      object: 'refund',
      amount: 1500,
      currency: 'eur',
      payment_intent: paymentIntent,
      status: 'succeeded',
      metadata: {},
    });
    expect(first.id).toMatch(/^re_/);

    const tooMuch = await rejection(stripe.refunds.create({ payment_intent: paymentIntent, amount: 3000 }));
    expect(tooMuch).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(tooMuch).toMatchObject({ statusCode: 400, code: 'amount_too_large', param: 'amount' });

    // Without an amount, what remains.
    const second = await stripe.refunds.create({ payment_intent: paymentIntent, metadata: { why: 'rest' } });
    expect(second).toMatchObject({ amount: 2300, metadata: { why: 'rest' } });

    const third = await rejection(stripe.refunds.create({ payment_intent: paymentIntent, amount: 1 }));
    expect(third).toMatchObject({ statusCode: 400, code: 'charge_already_refunded' });
    expect(fake.refunds.filter((r) => r.payment_intent === paymentIntent).map((r) => r.amount)).toEqual([
      1500, 2300,
    ]);
  });

  it('refuses a refund of an unknown payment intent, or of one not paid', async () => {
    const unknown = await rejection(stripe.refunds.create({ payment_intent: 'pi_nothing' }));
    expect(unknown).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'payment_intent' });

    const { id } = await stripe.checkout.sessions.create(sessionParams());
    const pending = fake.pay(id, { paymentStatus: 'unpaid' });
    expect(pending).toMatchObject({ status: 'complete', payment_status: 'unpaid' });
    const notPaid = await rejection(stripe.refunds.create({ payment_intent: pending.payment_intent! }));
    expect(notPaid).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
  });
});

describe('idempotency', () => {
  it('replays a refund with the same key: one refund, the same answer, Idempotent-Replayed', async () => {
    const { id } = await stripe.checkout.sessions.create(sessionParams());
    const paymentIntent = fake.pay(id).payment_intent!;
    const before = fake.refunds.length;
    const params = { payment_intent: paymentIntent, amount: 1000 };

    const first = await stripe.refunds.create(params, { idempotencyKey: `refund-${id}` });
    const again = await stripe.refunds.create(params, { idempotencyKey: `refund-${id}` });
    expect(again.id).toBe(first.id);
    expect(again.amount).toBe(1000);
    expect(fake.refunds.length).toBe(before + 1);
    expect(first.lastResponse.headers['idempotent-replayed']).toBeUndefined();
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(again.lastResponse.idempotencyKey).toBe(`refund-${id}`);

    const reused = await rejection(
      stripe.refunds.create({ ...params, amount: 500 }, { idempotencyKey: `refund-${id}` }),
    );
    expect(reused).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(reused.statusCode).toBe(400);
    expect(fake.refunds.length).toBe(before + 1);
  });

  it('replays a refused refund too, since the endpoint ran', async () => {
    const { id } = await stripe.checkout.sessions.create(sessionParams());
    const paymentIntent = fake.pay(id).payment_intent!;
    const params = { payment_intent: paymentIntent, amount: 999_999 };
    const first = await rejection(stripe.refunds.create(params, { idempotencyKey: `too-much-${id}` }));
    const again = await rejection(stripe.refunds.create(params, { idempotencyKey: `too-much-${id}` }));
    expect(first.code).toBe('amount_too_large');
    expect(again.code).toBe('amount_too_large');
    expect(again.headers?.['idempotent-replayed']).toBe('true');
  });
});

describe('injected failures', () => {
  it('failNext makes the SDK throw when it does not retry, and the next call succeeds', async () => {
    const once = client({ maxNetworkRetries: 0 });
    fake.failNext('/v1/checkout/sessions', 1);
    const error = await rejection(once.checkout.sessions.create(sessionParams()));
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(error.statusCode).toBe(500);
    const session = await once.checkout.sessions.create(sessionParams());
    expect(session.status).toBe('open');
  });

  it('a failure is not kept for the idempotency key, so the SDK retry with that key acts once', async () => {
    const sessionsBefore = fake.sessions.size;
    const callsBefore = fake.calls.length;
    fake.failNext('/v1/checkout/sessions', 1, 503);
    const session = await client({ maxNetworkRetries: 1 }).checkout.sessions.create(sessionParams());
    expect(session.status).toBe('open');
    expect(fake.sessions.size).toBe(sessionsBefore + 1);
    const [failed, retried] = fake.calls.slice(callsBefore);
    expect(retried?.idempotencyKey).toBe(failed?.idempotencyKey);
  });

  it('hangNext leaves a call unanswered, so the SDK times out', async () => {
    fake.hangNext('/v1/refunds', 1);
    const error = await rejection(
      client({ maxNetworkRetries: 0, timeout: 300 }).refunds.create({ payment_intent: 'pi_any' }),
    );
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    // Only the hung call: the next one is answered (here, 404 for an unknown payment intent).
    expect(await rejection(stripe.refunds.create({ payment_intent: 'pi_any' }))).toMatchObject({
      statusCode: 404,
    });
  });
});

describe('signed events', () => {
  it('signs an event that constructEvent accepts fresh, and refuses stale or with another secret', async () => {
    const { id } = await stripe.checkout.sessions.create(sessionParams());
    const session = fake.pay(id);
    const event = fake.event('checkout.session.completed', session);
    expect(event).toMatchObject({
      object: 'event',
      type: 'checkout.session.completed',
      livemode: false,
      api_version: Stripe.API_VERSION,
      data: { object: { id, status: 'complete', payment_status: 'paid' } },
    });
    expect(event.id).toMatch(/^evt_/);

    const fresh = signedEventRequest(event, WEBHOOK_SECRET);
    expect(fresh.headers['content-type']).toBe('application/json');
    const verified = stripe.webhooks.constructEvent(
      fresh.body,
      fresh.headers['stripe-signature'],
      WEBHOOK_SECRET,
    );
    expect(verified.id).toBe(event.id);
    expect(verified.type).toBe('checkout.session.completed');
    if (verified.type === 'checkout.session.completed') expect(verified.data.object.id).toBe(id);

    const stale = signedEventRequest(event, WEBHOOK_SECRET, {
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    expect(() =>
      stripe.webhooks.constructEvent(stale.body, stale.headers['stripe-signature'], WEBHOOK_SECRET),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);

    expect(() =>
      stripe.webhooks.constructEvent(fresh.body, fresh.headers['stripe-signature'], 'whsec_other'),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });
});
