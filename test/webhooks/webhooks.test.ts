// Webhook subscriptions and the delivery of `publishNewEvent`, over HTTP, on the embedded database and on
// PostgreSQL: signed messages (verified with the standardwebhooks package), retries with the same
// webhook-id, safe targets, and who may manage subscriptions.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/webhooks/dispatcher.ts';
import { purgeOldDeliveries } from '../../src/webhooks/webhooks.service.ts';
import { execute } from '../support/db.ts';
import { codeBlocks } from '../support/docs.ts';
import { basic, eventBody, openSecondInstance, ownDatabase, STAFF } from '../support/museum.ts';
import { eventually, type Receiver, startReceiver } from '../support/receiver.ts';
import { freePort, spawnServer } from '../support/server.ts';
import { useMuseum } from '../support/use-museum.ts';

const receivers: Receiver[] = [];

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

const museum = useMuseum({
  MUSEUM_WEBHOOK_ALLOW_PRIVATE: 'true',
  MUSEUM_WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const subscribe = (url: string, description?: string) =>
  museum.rest('POST', '/webhook-subscriptions', { as: 'staff', body: { url, description } });

/** Every subscription made so far is deleted, so that each test counts its own messages. */
async function unsubscribeAll() {
  for (;;) {
    const { body } = await museum.rest('GET', '/webhook-subscriptions?limit=30', { as: 'staff' });
    if (body.length === 0) return;
    for (const subscription of body)
      await museum.rest('DELETE', `/webhook-subscriptions/${subscription.id}`, { as: 'staff' });
  }
}

/** The subscription's latest delivery, once it has `status`. */
const latestDelivery = (subscriptionId: string, status: string) =>
  eventually(async () => {
    const [latest] = await deliveriesOf(subscriptionId);
    return latest?.status === status && latest;
  });

const deliveriesOf = async (subscriptionId: string) =>
  (await museum.rest('GET', `/webhook-subscriptions/${subscriptionId}/deliveries`, { as: 'staff' })).body;

describe('subscriptions', () => {
  it('POST answers 201 with the secret once, Location, and the subscription reads back without it', async () => {
    await unsubscribeAll();
    const created = await subscribe('http://127.0.0.1:9/hooks', 'partner CMS');
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      url: 'http://127.0.0.1:9/hooks',
      description: 'partner CMS',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    expect(Buffer.from(created.body.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(
      24,
    );
    expect(created.headers.get('location')).toBe(`/webhook-subscriptions/${created.body.id}`);
    const { secret: _secret, ...shown } = created.body;

    const one = await museum.rest('GET', `/webhook-subscriptions/${created.body.id}`, { as: 'staff' });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(shown);
    const list = await museum.rest('GET', '/webhook-subscriptions', { as: 'staff' });
    expect(list.body).toEqual([shown]);
    expect(list.headers.get('x-total-count')).toBe('1');
    expect(list.headers.get('link')).toContain('rel="first"');

    const graphql = await museum.graphql(
      '{ webhookSubscriptions { total items { id url description createdAt } } }',
      {},
      { as: 'staff' },
    );
    expect(graphql.body.data.webhookSubscriptions).toEqual({ total: 1, items: [shown] });
  });

  it('DELETE answers 204; the subscription, its deliveries and further messages are gone', async () => {
    await unsubscribeAll();
    const hooks = await receiver();
    const { body: subscription } = await subscribe(hooks.url);
    const deleted = await museum.rest('DELETE', `/webhook-subscriptions/${subscription.id}`, { as: 'staff' });
    expect(deleted.status).toBe(204);
    for (const path of [
      `/webhook-subscriptions/${subscription.id}`,
      `/webhook-subscriptions/${subscription.id}/deliveries`,
    ])
      expect((await museum.rest('GET', path, { as: 'staff' })).status).toBe(404);
    const again = await museum.rest('DELETE', `/webhook-subscriptions/${subscription.id}`, { as: 'staff' });
    expect(again.status).toBe(404);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.received).toHaveLength(0);
  });

  it('GraphQL creates and deletes too; an unknown id is NOT_FOUND', async () => {
    const created = await museum.graphql(
      'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id url secret } }',
      { input: { url: 'http://127.0.0.1:9/graphql-hooks' } },
      { as: 'staff' },
    );
    const { id, secret } = created.body.data.createWebhookSubscription;
    expect(secret).toMatch(/^whsec_/);
    const deleted = await museum.graphql(
      'mutation($id: UUID!) { deleteWebhookSubscription(id: $id) }',
      { id },
      { as: 'staff' },
    );
    expect(deleted.body.data).toEqual({ deleteWebhookSubscription: true });
    const unknown = await museum.graphql(
      'mutation($id: UUID!) { deleteWebhookSubscription(id: $id) }',
      { id },
      { as: 'staff' },
    );
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('visitors get 403 and strangers 401 on every webhook route and field', async () => {
    const { body: subscription } = await subscribe('http://127.0.0.1:9/hooks');
    const routes: Array<[string, string, unknown?]> = [
      ['POST', '/webhook-subscriptions', { url: 'http://127.0.0.1:9/x' }],
      ['GET', '/webhook-subscriptions'],
      ['GET', `/webhook-subscriptions/${subscription.id}`],
      ['DELETE', `/webhook-subscriptions/${subscription.id}`],
      ['GET', `/webhook-subscriptions/${subscription.id}/deliveries`],
    ];
    for (const [method, path, body] of routes) {
      expect((await museum.rest(method, path, { as: 'visitor', body })).status, `${method} ${path}`).toBe(
        403,
      );
      expect((await museum.rest(method, path, { as: 'anonymous', body })).status, `${method} ${path}`).toBe(
        401,
      );
    }
    for (const query of [
      '{ webhookSubscriptions { total } }',
      `{ webhookSubscription(id: "${subscription.id}") { id } }`,
      `{ webhookDeliveries(subscriptionId: "${subscription.id}") { total } }`,
      `mutation { deleteWebhookSubscription(id: "${subscription.id}") }`,
      'mutation { createWebhookSubscription(input: {url: "http://127.0.0.1:9/x"}) { id } }',
    ]) {
      const visitor = await museum.graphql(query, {}, { as: 'visitor' });
      expect(visitor.status, query).toBe(403);
      expect(visitor.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect((await museum.graphql(query, {}, { as: 'anonymous' })).status, query).toBe(401);
    }
    // Still there: nobody but staff could delete it.
    expect(
      (await museum.rest('GET', `/webhook-subscriptions/${subscription.id}`, { as: 'staff' })).status,
    ).toBe(200);
  });

  it('holds at most 100 subscriptions: one more is 409', async () => {
    await unsubscribeAll();
    for (let n = 0; n < 100; n++) expect((await subscribe(`http://127.0.0.1:9/hooks/${n}`)).status).toBe(201);
    const refused = await subscribe('http://127.0.0.1:9/one-too-many');
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('100 webhook subscriptions');
    const { headers } = await museum.rest('GET', '/webhook-subscriptions', { as: 'staff' });
    expect(headers.get('x-total-count')).toBe('100');
    await unsubscribeAll();
  });

  it('bad input is a 400 naming the field, and nothing is created', async () => {
    await unsubscribeAll();
    for (const [body, path] of [
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://example.com/x' }, 'url'],
      [{ url: `https://example.com/${'x'.repeat(2048)}` }, 'url'],
      [{ url: 'https://example.com/x', description: 'd'.repeat(501) }, 'description'],
      [{}, 'url'],
      [{ url: 'https://example.com/x', secret: 'mine' }, 'secret'],
    ] as const) {
      const refused = await museum.rest('POST', '/webhook-subscriptions', { as: 'staff', body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await museum.rest('GET', '/webhook-subscriptions', { as: 'staff' })).body).toEqual([]);
  });
});

describe('delivery', () => {
  it('a created and a patched event each reach the receiver, signed, as GET /special-events/{id} answers', async () => {
    await unsubscribeAll();
    const hooks = await receiver();
    const { body: subscription } = await subscribe(hooks.url);
    const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    const [first] = await hooks.waitFor(1);
    const verifier = new Webhook(subscription.secret);

    expect(first!.headers['content-type']).toBe('application/json');
    expect(verifier.verify(first!.body, first!.headers as Record<string, string>)).toEqual(created.body);
    const read = await museum.rest('GET', `/special-events/${created.body.eventId}`);
    expect(JSON.parse(first!.body)).toEqual(read.body);
    expect(first!.headers['webhook-id']).toMatch(/^msg_/);
    expect(Math.abs(Number(first!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);

    await museum.rest('PATCH', `/special-events/${created.body.eventId}`, {
      as: 'staff',
      body: { price: 12.5, capacity: 40 },
    });
    const [, second] = await hooks.waitFor(2);
    const patched = verifier.verify(second!.body, second!.headers as Record<string, string>);
    expect(patched).toEqual((await museum.rest('GET', `/special-events/${created.body.eventId}`)).body);
    expect(patched).toMatchObject({ price: 12.5, capacity: 40 });
    expect(second!.headers['webhook-id']).not.toBe(first!.headers['webhook-id']);

    // A signature made with another secret, or over another body, does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(
        first!.body,
        first!.headers as Record<string, string>,
      ),
    ).toThrow();
    expect(() =>
      verifier.verify(second!.body.replace('12.5', '1.25'), second!.headers as Record<string, string>),
    ).toThrow();

    const deliveries = await eventually(async () => {
      const list = await deliveriesOf(subscription.id);
      return list.length === 2 && list.every((d: { status: string }) => d.status === 'delivered') && list;
    });
    expect(deliveries[0]).toMatchObject({
      webhookId: second!.headers['webhook-id'],
      eventId: created.body.eventId,
      status: 'delivered',
      attempts: 1,
      lastResponseStatus: 202,
    });
    expect(deliveries[0].nextAttemptAt).toBeUndefined();
  });

  it('GraphQL changes are delivered too', async () => {
    await unsubscribeAll();
    const hooks = await receiver();
    await subscribe(hooks.url);
    const created = await museum.graphql(
      'mutation($input: CreateSpecialEventInput!) { createSpecialEvent(input: $input) { eventId } }',
      { input: eventBody({ name: 'Over GraphQL' }) },
      { as: 'staff' },
    );
    const [message] = await hooks.waitFor(1);
    expect(JSON.parse(message!.body)).toMatchObject({
      eventId: created.body.data.createSpecialEvent.eventId,
      name: 'Over GraphQL',
    });
  });

  it('a receiver answering 500 twice, then 202, gets three attempts with one webhook-id; the delivery is delivered', async () => {
    await unsubscribeAll();
    const hooks = await receiver((n) => (n <= 2 ? 500 : 202));
    const { body: subscription } = await subscribe(hooks.url);
    await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    const attempts = await hooks.waitFor(3);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    const verifier = new Webhook(subscription.secret);
    for (const attempt of attempts) verifier.verify(attempt.body, attempt.headers as Record<string, string>);
    const delivery = await latestDelivery(subscription.id, 'delivered');
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, lastResponseStatus: 202 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hooks.received).toHaveLength(3);
  });

  it('after the last retry of the schedule the delivery is failed, and attempts stop', async () => {
    await unsubscribeAll();
    const hooks = await receiver(() => ({ status: 500, body: 'x'.repeat(5000) }));
    const { body: subscription } = await subscribe(hooks.url);
    await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    await hooks.waitFor(3);
    const delivery = await latestDelivery(subscription.id, 'failed');
    expect(delivery).toMatchObject({ status: 'failed', attempts: 3, lastResponseStatus: 500 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(hooks.received).toHaveLength(3);
    // At most 1 KiB of the answer is kept.
    const [kept] = await execute<{ length: number }[]>(
      museum.deps.db,
      'select octet_length(last_response) as length from webhook_delivery where subscription_id = $1',
      [subscription.id],
    );
    expect(kept!.length).toBe(1024);
  });

  it('a redirect is not followed: it is a failed attempt', async () => {
    await unsubscribeAll();
    const elsewhere = await receiver();
    const hooks = await receiver(() => ({ status: 307, headers: { location: elsewhere.url } }));
    const { body: subscription } = await subscribe(hooks.url);
    await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    await hooks.waitFor(3);
    const delivery = await latestDelivery(subscription.id, 'failed');
    expect(delivery.lastResponseStatus).toBe(307);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('a refused connection is retried like a failed answer', async () => {
    await unsubscribeAll();
    const closed = await receiver();
    await closed.close();
    const { body: subscription } = await subscribe(closed.url);
    await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    const delivery = await latestDelivery(subscription.id, 'failed');
    expect(delivery).toMatchObject({ attempts: 3 });
    expect(delivery.lastResponseStatus).toBeUndefined();
  });

  it('an event change that fails (rolls back) queues nothing', async () => {
    await unsubscribeAll();
    const hooks = await receiver();
    const { body: subscription } = await subscribe(hooks.url);
    const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    await hooks.waitFor(1);
    const stale = await museum.rest('PATCH', `/special-events/${created.body.eventId}`, {
      as: 'staff',
      headers: { 'if-match': '"v999"' },
      body: { price: 1 },
    });
    expect(stale.status).toBe(412);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.received).toHaveLength(1);
    expect(await deliveriesOf(subscription.id)).toHaveLength(1);
  });
});

describe('metrics', () => {
  it('/metrics shows the backlog: messages pending and the age of the oldest', async () => {
    await unsubscribeAll();
    const gauge = async (name: string) => {
      const { text } = await museum.request('GET', '/metrics');
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    };
    expect(await gauge('webhook_deliveries_pending')).toBe(0);
    expect(await gauge('webhook_oldest_pending_seconds')).toBe(0);
    const hooks = await receiver(() => 'never');
    await subscribe(hooks.url);
    await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    await hooks.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await gauge('webhook_deliveries_pending')).toBe(1);
    expect(await gauge('webhook_oldest_pending_seconds')).toBeGreaterThan(1);
    await unsubscribeAll();
  });
});

describe('retention', () => {
  it('deliveries that are over are forgotten after 30 days; pending ones stay', async () => {
    await unsubscribeAll();
    const hooks = await receiver();
    const { body: subscription } = await subscribe(hooks.url);
    await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    await hooks.waitFor(1);
    await eventually(async () => (await deliveriesOf(subscription.id))[0]?.status === 'delivered');
    await execute(
      museum.deps.db,
      `insert into webhook_delivery (id, webhook_id, subscription_id, event_id, payload, next_attempt_at, created_at)
       select gen_random_uuid(), 'msg_old_pending', subscription_id, event_id, payload, now() + interval '1 day', now() - interval '40 days'
       from webhook_delivery where subscription_id = $1`,
      [subscription.id],
    );
    await purgeOldDeliveries(museum.deps.db.sql);
    expect((await deliveriesOf(subscription.id)).map((d: { status: string }) => d.status).sort()).toEqual([
      'delivered',
      'pending',
    ]);
    await execute(
      museum.deps.db,
      `update webhook_delivery set created_at = now() - interval '31 days' where subscription_id = $1 and status = 'delivered'`,
      [subscription.id],
    );
    await purgeOldDeliveries(museum.deps.db.sql);
    expect((await deliveriesOf(subscription.id)).map((d: { webhookId: string }) => d.webhookId)).toEqual([
      'msg_old_pending',
    ]);
  });
});

describe('safe targets', () => {
  const strict = useMuseum();

  it('refuses http://, loopback, private, link-local and metadata addresses with a 400 naming url', async () => {
    for (const url of [
      'http://example.com/hooks',
      'https://127.0.0.1/hooks',
      'https://localhost/hooks',
      'https://api.localhost/hooks',
      'https://10.1.2.3/hooks',
      'https://172.16.0.1/hooks',
      'https://192.168.1.1/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://100.100.100.200/',
      'https://0.0.0.0/',
      'https://[::1]/hooks',
      'https://[fd00:ec2::254]/',
      'https://[fe80::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://metadata.google.internal/',
      'https://user:pass@example.com/hooks',
    ]) {
      const refused = await strict.rest('POST', '/webhook-subscriptions', { as: 'staff', body: { url } });
      expect(refused.status, url).toBe(400);
      expect(refused.body.errors, url).toEqual([{ path: 'url', message: expect.any(String) }]);
    }
    const graphql = await strict.graphql(
      'mutation { createWebhookSubscription(input: {url: "https://127.0.0.1/x"}) { id } }',
      {},
      { as: 'staff' },
    );
    expect(graphql.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [{ path: 'input.url', message: expect.stringContaining('private') }],
    });
    expect((await strict.rest('GET', '/webhook-subscriptions', { as: 'staff' })).body).toEqual([]);
  });

  it('at delivery, an address that resolves to a private one is refused without connecting', async () => {
    const hooks = await receiver();
    const { port } = new URL(hooks.url);
    const message = { secret: 'whsec_AAAA', webhookId: 'msg_1', payload: '{}' };
    const strict = { allowPrivate: false };
    const byName = await sendMessage({ ...message, url: `http://localhost:${port}/hooks` }, strict);
    expect(byName).toEqual({ status: null, response: expect.stringContaining('refused') });
    const byAddress = await sendMessage({ ...message, url: hooks.url }, strict);
    expect(byAddress).toEqual({ status: null, response: expect.stringContaining('refused') });
    expect(hooks.received).toHaveLength(0);
    // Allowed (development), the same message goes through.
    const allowed = await sendMessage({ ...message, url: hooks.url }, { allowPrivate: true });
    expect(allowed.status).toBe(202);
  });

  it('an attempt with no answer in time has failed, and the connection is dropped', async () => {
    const sockets: Socket[] = [];
    // Reads the request, never answers.
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const outcome = await sendMessage(
        { url: `http://127.0.0.1:${port}/`, secret: 'whsec_AAAA', webhookId: 'msg_1', payload: '{}' },
        { allowPrivate: true, timeoutMs: 200 },
      );
      expect(outcome).toEqual({ status: null, response: 'no answer within 0.2 s' });
      await eventually(async () => sockets.length === 1 && sockets[0]!.destroyed);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});

const WEBHOOK_ENV = { MUSEUM_WEBHOOK_ALLOW_PRIVATE: 'true', MUSEUM_WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' };

describe.skipIf(!process.env.TEST_DATABASE_URL)('several instances (PostgreSQL)', () => {
  it('two instances deliver each message exactly once to a healthy receiver', async () => {
    const second = await openSecondInstance(museum, WEBHOOK_ENV);
    try {
      await unsubscribeAll();
      const hooks = await receiver();
      await subscribe(hooks.url);
      // Both instances hear of every change and race for each message.
      const instances = [museum, second];
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          instances[n % 2]!.fetch('http://museum.test/special-events', {
            method: 'POST',
            headers: { authorization: basic(STAFF.name, STAFF.password), 'content-type': 'application/json' },
            body: JSON.stringify(eventBody({ name: `Event ${n}` })),
          }).then((response) => response.json() as Promise<{ eventId: string }>),
        ),
      );
      await hooks.waitFor(20);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const ids = hooks.received.map((message) => message.headers['webhook-id']);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
      expect(new Set(hooks.received.map((m) => JSON.parse(m.body).eventId))).toEqual(
        new Set(created.map((event) => event.eventId)),
      );
    } finally {
      await second.close();
    }
  });
});

const staffJson = { authorization: basic(STAFF.name, STAFF.password), 'content-type': 'application/json' };

/** Subscribes `url` on a started server and creates an event there; the secret and the event. */
async function subscribeAndCreate(server: { url: string }, url: string) {
  const subscribed = await fetch(`${server.url}/webhook-subscriptions`, {
    method: 'POST',
    headers: staffJson,
    body: JSON.stringify({ url }),
  });
  const { secret } = (await subscribed.json()) as { secret: string };
  const created = await fetch(`${server.url}/special-events`, {
    method: 'POST',
    headers: staffJson,
    body: JSON.stringify(eventBody({ name: 'Survives a crash' })),
  });
  expect(created.status).toBe(201);
  return { secret, event: (await created.json()) as { eventId: string } };
}

describe('a crash', () => {
  const serverEnv = (database: Record<string, string>) => ({
    ...database,
    ...WEBHOOK_ENV,
    MUSEUM_ADMIN_USER: STAFF.name,
    MUSEUM_ADMIN_PASSWORD: STAFF.password,
  });

  it('right after the API acknowledged a change (SIGKILL): the message is delivered after restart', async () => {
    const hooks = await receiver();
    const database = await ownDatabase();
    try {
      // This one queues but does not deliver, so the kill surely comes first.
      const first = await spawnServer({ ...serverEnv(database.env), MUSEUM_WEBHOOK_WORKER: 'off' });
      const { secret, event } = await subscribeAndCreate(first, hooks.url);
      first.child.kill('SIGKILL');
      await first.exited;
      expect(hooks.received).toHaveLength(0);

      const restarted = await spawnServer(serverEnv(database.env));
      try {
        const [message] = await hooks.waitFor(1);
        expect(new Webhook(secret).verify(message!.body, message!.headers as Record<string, string>)).toEqual(
          event,
        );
      } finally {
        await restarted.stop();
      }
    } finally {
      await database.drop();
    }
  });

  it('in the middle of an attempt (SIGKILL): the message is sent again, same webhook-id, once its lease runs out', async () => {
    const hooks = await receiver((n) => (n === 1 ? 'never' : 202));
    const database = await ownDatabase();
    try {
      const first = await spawnServer(serverEnv(database.env));
      const { secret } = await subscribeAndCreate(first, hooks.url);
      await hooks.waitFor(1);
      first.child.kill('SIGKILL');
      await first.exited;

      const restarted = await spawnServer(serverEnv(database.env));
      try {
        const [held, again] = await hooks.waitFor(2, 30_000);
        expect(again!.headers['webhook-id']).toBe(held!.headers['webhook-id']);
        new Webhook(secret).verify(again!.body, again!.headers as Record<string, string>);
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(hooks.received).toHaveLength(2);
      } finally {
        await restarted.stop();
      }
    } finally {
      await database.drop();
    }
  }, 60_000);
});

describe('the receiver of docs/live.md', () => {
  it('verifies a message, logs the event once, and answers 202', async () => {
    const [source] = codeBlocks('docs/live.md', 'Webhooks', 'js');
    const directory = await mkdtemp(join(tmpdir(), 'museum-receiver-'));
    await symlink(new URL('../../node_modules', import.meta.url).pathname, join(directory, 'node_modules'));
    await writeFile(join(directory, 'receiver.mjs'), source!);
    const port = await freePort();
    await unsubscribeAll();
    const { body: subscription } = await subscribe(`http://127.0.0.1:${port}/`);
    const child = spawn(process.execPath, ['receiver.mjs'], {
      cwd: directory,
      env: { PATH: process.env.PATH, WEBHOOK_SECRET: subscription.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    try {
      await eventually(() =>
        fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(
          (response) => response.status === 400,
          () => false,
        ),
      );
      const created = await museum.rest('POST', '/special-events', {
        as: 'staff',
        body: eventBody({ name: 'Told by webhook' }),
      });
      await eventually(async () => output.includes(`event ${created.body.eventId} Told by webhook`));
      const delivery = await latestDelivery(subscription.id, 'delivered');
      expect(delivery.lastResponseStatus).toBe(202);
    } finally {
      child.kill();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
