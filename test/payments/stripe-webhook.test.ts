// Stripe's webhook, POST /payments/stripe (issue 56): a route of the HTTP lane that reads the raw body and the
// Stripe-Signature header and hands them to the payments, not a field of the GraphQL schema. What it answers
// when the request is not one Stripe would send: never a 5xx, the same problem+json as every route.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { BODY_LIMIT_BYTES } from '../../src/protocol/request.ts';
import { expectProblem } from '../support/assertions.ts';
import { STRIPE_WEBHOOK_SECRET, sendStripeEvent, usePaidMuseum } from '../support/payments.ts';
import { type StripeEvent, signedEventRequest } from '../support/stripe-server.ts';
import { useMuseum } from '../support/use-museum.ts';

/** The log lines of the paid museum, as pino writes them. */
const logged: string[] = [];
const logger = createLogger('info', { write: (line: string) => void logged.push(line) });
const { museum } = usePaidMuseum({}, { logger });

const PATH = '/payments/stripe';

/** An event of a type the service does not act on: it needs no order, and answers `ignored`. */
const otherEvent = (id: string) =>
  ({
    id,
    object: 'event',
    type: 'customer.created',
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: 'cus_1', object: 'customer' } },
  }) as unknown as StripeEvent;

const post = (body: string, headers: Record<string, string>) =>
  museum.request('POST', PATH, { rawBody: body, headers });

describe('POST /payments/stripe', () => {
  it('answers a verified event 200 {received, outcome}, as JSON nobody keeps', async () => {
    const answer = await sendStripeEvent(museum, otherEvent('evt_webhook_ok'));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.text).toBe('{"received":true,"outcome":"ignored"}');
    const replay = await sendStripeEvent(museum, otherEvent('evt_webhook_ok'));
    expect(replay.body).toEqual({ received: true, outcome: 'replayed' });
  });

  it('takes no account: credentials sent with an event, even wrong ones, are not looked at', async () => {
    const { body, headers } = signedEventRequest(
      otherEvent('evt_webhook_credentials'),
      STRIPE_WEBHOOK_SECRET,
    );
    const answer = await post(body, { ...headers, authorization: 'Basic bm9ib2R5Ondyb25n' });
    expect(answer.status).toBe(200);
    expect(answer.body.outcome).toBe('ignored');
  });

  it('hands the verifier the body exactly as it came: one byte changed, and the signature does not verify', async () => {
    const { body, headers } = signedEventRequest(otherEvent('evt_webhook_bytes'), STRIPE_WEBHOOK_SECRET);
    // The same JSON value, written otherwise: what parsing makes of it is not what was signed.
    const reformatted = await post(JSON.stringify(JSON.parse(body)), headers);
    expect(reformatted.status).toBe(400);
    expect((await post(body, headers)).body.outcome).toBe('ignored');
  });

  it('refuses a bad or missing signature with 400 naming stripe-signature', async () => {
    const { body, headers } = signedEventRequest(otherEvent('evt_webhook_forged'), 'whsec_someone_else');
    const forged = await post(body, headers);
    expectProblem(forged, 400, 'Validation failed');
    expect(forged.body).toEqual({
      type: '/problems/validation',
      title: 'Validation failed',
      status: 400,
      detail:
        'stripe-signature: does not verify: not signed with STRIPE_WEBHOOK_SECRET, or older than 5 minutes',
      errors: [
        {
          path: 'stripe-signature',
          message: 'does not verify: not signed with STRIPE_WEBHOOK_SECRET, or older than 5 minutes',
        },
      ],
    });
    expect(forged.headers.get('cache-control')).toBe('no-store');
    const unsigned = await post(body, { 'content-type': 'application/json' });
    expect(unsigned.body).toEqual({
      type: '/problems/validation',
      title: 'Validation failed',
      status: 400,
      detail: 'stripe-signature: is required: the Stripe-Signature header of a webhook request',
      errors: [
        {
          path: 'stripe-signature',
          message: 'is required: the Stripe-Signature header of a webhook request',
        },
      ],
    });
    const garbled = await post(body, { 'content-type': 'application/json', 'stripe-signature': 'nonsense' });
    expectProblem(garbled, 400, 'Validation failed');
  });

  it('refuses a body that is not a JSON object: 415, 400, 413', async () => {
    const { body, headers } = signedEventRequest(otherEvent('evt_webhook_media'), STRIPE_WEBHOOK_SECRET);
    const text = await post(body, { ...headers, 'content-type': 'text/plain' });
    expectProblem(text, 415, 'Unsupported media type');
    expect(text.body.detail).toBe('The request body must be application/json');
    const untyped = await museum.request('POST', PATH, {
      rawBody: body,
      headers: { 'stripe-signature': headers['stripe-signature'] },
    });
    expectProblem(untyped, 415, 'Unsupported media type');
    const broken = await post('{"id": ', headers);
    expectProblem(broken, 400, 'Validation failed');
    expect(broken.body).toMatchObject({
      detail: 'The request body is not valid JSON',
      errors: [{ path: '', message: 'must be valid JSON' }],
    });
    const twice = await post('{"id": "evt_a", "id": "evt_b"}', headers);
    expect(twice.body).toMatchObject({
      detail: 'id: is given more than once',
      errors: [{ path: 'id', message: 'is given more than once' }],
    });
    for (const notObject of ['[]', '"evt"', 'null', '42']) {
      const refused = await post(notObject, headers);
      expectProblem(refused, 400, 'Validation failed');
      expect(refused.body).toMatchObject({
        detail: 'The request body must be a JSON object',
        errors: [{ path: '', message: 'must be a JSON object' }],
      });
    }
    const large = await post(`{"pad": "${'x'.repeat(BODY_LIMIT_BYTES)}"}`, headers);
    expectProblem(large, 413, 'Payload too large');
    expect(large.body.detail).toBe(`The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB`);
  });

  it('answers OPTIONS with Allow, and another method 405 naming POST', async () => {
    const options = await museum.request('OPTIONS', PATH);
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('OPTIONS, POST');
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const refused = await museum.request(method, PATH);
      expectProblem(refused, 405, 'Method not allowed');
      expect(refused.headers.get('allow')).toBe('POST');
      expect(refused.body.detail).toBe(`${method} is not supported here; use POST`);
    }
    const head = await museum.request('HEAD', PATH);
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
    expect(head.text).toBe('');
  });

  it('is counted under its route, and logged without its body or signature', async () => {
    const { body, headers } = signedEventRequest(otherEvent('evt_webhook_logged'), STRIPE_WEBHOOK_SECRET);
    logged.length = 0;
    expect((await post(body, headers)).status).toBe(200);
    await post(body, { ...headers, 'stripe-signature': 't=1,v1=deadbeef' });
    const lines = logged.map((line) => JSON.parse(line));
    const requests = lines.filter((line) => line.route === PATH);
    expect(requests.map((line) => [line.method, line.status])).toEqual([
      ['POST', 200],
      ['POST', 400],
    ]);
    const all = logged.join('\n');
    expect(all).not.toContain(headers['stripe-signature']);
    expect(all).not.toContain('deadbeef');
    expect(all).not.toContain('cus_1');
    const metrics = await museum.request('GET', '/metrics');
    expect(metrics.text).toMatch(
      /http_requests_total\{method="POST",route="\/payments\/stripe",status="200"\} \d+/,
    );
  });
});

describe('POST /payments/stripe with MUSEUM_PAYMENTS=none', () => {
  const unpaid = useMuseum();

  it('answers 404: payments are not taken here (after the body is checked, as before)', async () => {
    const { body, headers } = signedEventRequest(otherEvent('evt_nowhere'), STRIPE_WEBHOOK_SECRET);
    const refused = await unpaid.request('POST', PATH, { rawBody: body, headers });
    expectProblem(refused, 404, 'Not found');
    expect(refused.body).toEqual({
      type: '/problems/not-found',
      title: 'Not found',
      status: 404,
      detail: 'Payments are not taken here (MUSEUM_PAYMENTS=none)',
    });
    const text = await unpaid.request('POST', PATH, {
      rawBody: body,
      headers: { ...headers, 'content-type': 'text/plain' },
    });
    expectProblem(text, 415, 'Unsupported media type');
    expect((await unpaid.request('OPTIONS', PATH)).headers.get('allow')).toBe('OPTIONS, POST');
    expectProblem(await unpaid.request('GET', PATH), 405, 'Method not allowed');
  });
});
