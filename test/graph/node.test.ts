// Object identity (issue 24): global ids on SpecialEvent, Ticket, Account, WebhookSubscription and Order,
// and node/nodes answering each as its own root field would, to whoever asks.
import { beforeAll, describe, expect, it } from 'vitest';
import { addGateAccount, type Caller, eventBody, upcomingOpenDay } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum({ MUSEUM_WEBHOOK_ALLOW_PRIVATE: 'true', MUSEUM_WEBHOOK_WORKER: 'off' });

const NODE = `query($id: ID!) { node(id: $id) { __typename id
  ... on SpecialEvent { eventId name } ... on Ticket { ticketId status } ... on Account { name role }
  ... on Order { orderId } ... on WebhookSubscription { url } } }`;

const nodeAs = async (id: string, as: Caller) => {
  const response = await museum.graphql(NODE, { id }, { as });
  return response.body;
};

let event: { id: string; eventId: string; dates: string[] };
let ticket: { id: string; ticketId: string };
let order: { id: string; orderId: string };
let visitorId: string;

beforeAll(async () => {
  await addGateAccount(museum);
  const created = await museum.graphql(
    'mutation($input: CreateSpecialEventInput!) { createSpecialEvent(input: $input) { id eventId dates } }',
    { input: eventBody({ name: 'Identity' }) },
    { as: 'staff' },
  );
  event = created.body.data.createSpecialEvent;
  const bought = await museum.rest('POST', '/tickets', {
    as: 'visitor',
    body: { ticketType: 'event', eventId: event.eventId, ticketDate: event.dates[0], email: 'a@example.com' },
  });
  const read = await museum.graphql(
    'query($ticketId: UUID!) { ticket(ticketId: $ticketId) { id ticketId } }',
    { ticketId: bought.body.ticketId },
    { as: 'visitor' },
  );
  ticket = read.body.data.ticket;
  const placed = await museum.graphql(
    'mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id orderId } }',
    {
      input: {
        email: 'a@example.com',
        lines: [{ ticketType: 'general', ticketDate: upcomingOpenDay(1), quantity: 1 }],
      },
    },
    { as: 'visitor' },
  );
  order = placed.body.data.placeOrder;
  visitorId = (await museum.graphql('{ me { id } }', {}, { as: 'visitor' })).body.data.me.id;
});

describe('global ids', () => {
  it('are opaque base64url of the type and key, the same on every read', async () => {
    expect(Buffer.from(event.id, 'base64url').toString()).toBe(`SpecialEvent:${event.eventId}`);
    expect(Buffer.from(ticket.id, 'base64url').toString()).toBe(`Ticket:${ticket.ticketId}`);
    expect(Buffer.from(order.id, 'base64url').toString()).toBe(`Order:${order.orderId}`);
    const again = await museum.graphql(
      'query($eventId: UUID!) { specialEvent(eventId: $eventId) { id } }',
      { eventId: event.eventId },
      { as: 'visitor' },
    );
    expect(again.body.data.specialEvent.id).toBe(event.id);
  });

  it('node answers each type to whoever may read it', async () => {
    expect((await nodeAs(event.id, 'visitor')).data.node).toEqual({
      __typename: 'SpecialEvent',
      id: event.id,
      eventId: event.eventId,
      name: 'Identity',
    });
    expect((await nodeAs(ticket.id, 'visitor')).data.node).toMatchObject({
      __typename: 'Ticket',
      id: ticket.id,
    });
    expect((await nodeAs(ticket.id, 'staff')).data.node).toMatchObject({ ticketId: ticket.ticketId });
    expect((await nodeAs(ticket.id, 'gate')).data.node).toMatchObject({ ticketId: ticket.ticketId });
    expect((await nodeAs(order.id, 'visitor')).data.node).toEqual({
      __typename: 'Order',
      id: order.id,
      orderId: order.orderId,
    });
    expect((await nodeAs(visitorId, 'visitor')).data.node).toEqual({
      __typename: 'Account',
      id: visitorId,
      name: 'visitor',
      role: 'visitor',
    });
    expect((await nodeAs(visitorId, 'staff')).data.node).toMatchObject({ name: 'visitor' });
  });

  it("someone else's ticket, order or account is null, exactly as ticket(ticketId) is", async () => {
    for (const id of [ticket.id, order.id, visitorId]) {
      const body = await nodeAs(id, 'other');
      expect(body).toEqual({ data: { node: null } });
    }
    const direct = await museum.graphql(
      'query($ticketId: UUID!) { ticket(ticketId: $ticketId) { id } }',
      { ticketId: ticket.ticketId },
      { as: 'other' },
    );
    expect(direct.body).toEqual({ data: { ticket: null } });
  });

  it('a gate reads tickets but not events; a visitor no webhook subscription', async () => {
    expect((await nodeAs(event.id, 'gate')).data.node).toBeNull();
    const created = await museum.graphql(
      'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id } }',
      { input: { url: 'http://127.0.0.1:9/hooks' } },
      { as: 'staff' },
    );
    const { id } = created.body.data.createWebhookSubscription;
    expect((await nodeAs(id, 'staff')).data.node).toEqual({
      __typename: 'WebhookSubscription',
      id,
      url: 'http://127.0.0.1:9/hooks',
    });
    expect((await nodeAs(id, 'visitor')).data.node).toBeNull();
  });

  it('anonymous callers are refused; an id that names nothing is null', async () => {
    const anonymous = await museum.graphql(NODE, { id: event.id }, { as: 'anonymous' });
    expect(anonymous.status).toBe(401);
    for (const id of [
      '',
      'nonsense',
      Buffer.from('Ticket:1').toString('base64url'),
      Buffer.from(`Nope:${event.eventId}`).toString('base64url'),
    ]) {
      expect((await nodeAs(id, 'visitor')).data.node).toBeNull();
    }
  });

  it('a deleted event is null', async () => {
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ name: 'Gone' }),
    });
    const id = Buffer.from(`SpecialEvent:${created.body.eventId}`).toString('base64url');
    expect((await nodeAs(id, 'visitor')).data.node).toMatchObject({ name: 'Gone' });
    await museum.rest('DELETE', `/special-events/${created.body.eventId}`, { as: 'staff' });
    expect((await nodeAs(id, 'visitor')).data.node).toBeNull();
  });

  it('nodes answers each id in order, null where node would be; at most 30 ids', async () => {
    const response = await museum.graphql(
      'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
      { ids: [ticket.id, 'nonsense', event.id] },
      { as: 'visitor' },
    );
    expect(response.body.data.nodes).toEqual([
      { __typename: 'Ticket', id: ticket.id },
      null,
      { __typename: 'SpecialEvent', id: event.id },
    ]);
    const other = await museum.graphql(
      'query($ids: [ID!]!) { nodes(ids: $ids) { id } }',
      { ids: [ticket.id] },
      { as: 'other' },
    );
    expect(other.body.data.nodes).toEqual([null]);
    const many = await museum.graphql(
      'query($ids: [ID!]!) { nodes(ids: $ids) { id } }',
      { ids: Array.from({ length: 31 }, () => event.id) },
      { as: 'visitor' },
    );
    expect(many.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
