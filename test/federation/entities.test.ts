// The subgraph's `_entities` and `_service` on /graphql (issue 57): as safe as node(id) (each representation
// read under the caller's credentials, as its type's root field reads it), as fast (one statement for a batch of
// one type), bounded (100 representations, the query cost), and every malformed representation named.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graph/schema.ts';
import { measureQuery } from '../../src/graphql/query-limits.ts';
import { boughtTicket, createdEvent, placedOrder } from '../support/actions.ts';
import {
  addGateAccount,
  type Caller,
  startMuseum,
  type TestMuseum,
  upcomingClosedDay,
  upcomingOpenDay,
} from '../support/museum.ts';
import { statementsSentBy } from '../support/statements.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum({ MUSEUM_DAILY_CAPACITY: '100' });

const ENTITIES = `query($representations: [_Any!]!) { _entities(representations: $representations) {
  __typename
  ... on SpecialEvent { eventId name availability { date sold } }
  ... on Ticket { ticketId status event { name } }
  ... on Order { orderId tickets { ticketId } }
  ... on MuseumDay { date timeOpen remaining }
  ... on Account { id name role }
} }`;

const entitiesAs = (representations: unknown, as: Caller) =>
  museum.graphql(ENTITIES, { representations }, { as });

const UNKNOWN = '3be6453c-03eb-4357-ae5a-984a0e574a54';

let events: { eventId: string; name: string }[];
let ticket: { ticketId: string };
let order: { orderId: string };
let visitorId: string;

beforeAll(async () => {
  await addGateAccount(museum);
  events = [];
  for (let i = 0; i < 30; i++) events.push(await createdEvent(museum, { name: `Entity ${i}` }));
  ticket = await boughtTicket(museum, {
    ticketType: 'event',
    eventId: events[0]!.eventId,
    ticketDate: upcomingOpenDay(0),
  });
  order = await placedOrder(museum, {
    email: 'buyer@example.com',
    lines: [{ ticketType: 'general', ticketDate: upcomingOpenDay(1), quantity: 2 }],
  });
  visitorId = (await museum.graphql('{ me { id } }', {}, { as: 'visitor' })).body.data.me.id;
}, 120_000);

describe('_entities', () => {
  it('answers each representation in its order, as its own root field shows it', async () => {
    const response = await entitiesAs(
      [
        { __typename: 'SpecialEvent', eventId: events[1]!.eventId },
        { __typename: 'Ticket', ticketId: ticket.ticketId },
        { __typename: 'Order', orderId: order.orderId },
        { __typename: 'MuseumDay', date: upcomingOpenDay(1) },
        { __typename: 'Account', id: visitorId },
        { __typename: 'SpecialEvent', eventId: UNKNOWN },
        { __typename: 'MuseumDay', date: upcomingClosedDay(0) },
      ],
      'visitor',
    );
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const [event, ownTicket, ownOrder, day, account, unknown, closed] = response.body.data._entities;
    expect(event).toMatchObject({
      __typename: 'SpecialEvent',
      eventId: events[1]!.eventId,
      name: 'Entity 1',
    });
    // Staff-only figures stay staff-only: a visitor reads no sales.
    expect(event.availability[0]).toEqual({ date: upcomingOpenDay(0), sold: null });
    expect(ownTicket).toEqual({
      __typename: 'Ticket',
      ticketId: ticket.ticketId,
      status: 'valid',
      event: { name: 'Entity 0' },
    });
    expect(ownOrder.tickets).toHaveLength(2);
    expect(day).toEqual({
      __typename: 'MuseumDay',
      date: upcomingOpenDay(1),
      timeOpen: expect.any(String),
      remaining: 98,
    });
    const hours = await museum.graphql(
      'query($startDate: Date) { museumHours(startDate: $startDate, limit: 1) { date timeOpen remaining } }',
      { startDate: upcomingOpenDay(1) },
      { as: 'visitor' },
    );
    expect({ __typename: 'MuseumDay', ...hours.body.data.museumHours[0] }).toEqual(day);
    expect(account).toEqual({ __typename: 'Account', id: visitorId, name: 'visitor', role: 'visitor' });
    expect(unknown).toBeNull();
    expect(closed).toBeNull();
  });

  it('staff read the sales figures; a gate reads tickets but not events, orders or days', async () => {
    const staff = await entitiesAs([{ __typename: 'SpecialEvent', eventId: events[0]!.eventId }], 'staff');
    expect(staff.body.data._entities[0].availability[0]).toEqual({ date: upcomingOpenDay(0), sold: 1 });
    const gate = await entitiesAs(
      [
        { __typename: 'SpecialEvent', eventId: events[0]!.eventId },
        { __typename: 'Ticket', ticketId: ticket.ticketId },
        { __typename: 'Order', orderId: order.orderId },
        { __typename: 'MuseumDay', date: upcomingOpenDay(1) },
      ],
      'gate',
    );
    expect(gate.body.errors).toBeUndefined();
    const [event, gateTicket, gateOrder, day] = gate.body.data._entities;
    expect([event, gateOrder, day]).toEqual([null, null, null]);
    expect(gateTicket).toMatchObject({ ticketId: ticket.ticketId });
  });

  it("another visitor's ticket, order or account is null, as ticket(ticketId) answers", async () => {
    const response = await entitiesAs(
      [
        { __typename: 'Ticket', ticketId: ticket.ticketId },
        { __typename: 'Order', orderId: order.orderId },
        { __typename: 'Account', id: visitorId },
      ],
      'other',
    );
    expect(response.body).toEqual({ data: { _entities: [null, null, null] } });
    const direct = await museum.graphql(
      'query($ticketId: UUID!) { ticket(ticketId: $ticketId) { ticketId } }',
      { ticketId: ticket.ticketId },
      { as: 'other' },
    );
    expect(direct.body).toEqual({ data: { ticket: null } });
  });

  it('reads 30 events in one statement, as it reads one', async () => {
    const representations = events.map(({ eventId }) => ({ __typename: 'SpecialEvent', eventId }));
    const query =
      'query($r: [_Any!]!) { _entities(representations: $r) { ... on SpecialEvent { eventId name } } }';
    const statementsFor = async (list: unknown[]) => {
      await museum.graphql(query, { r: list }, { as: 'visitor' });
      const { response, statements } = await statementsSentBy(() =>
        museum.graphql(query, { r: list }, { as: 'visitor' }),
      );
      expect(response.body.errors).toBeUndefined();
      return { data: response.body.data._entities, statements };
    };
    const one = await statementsFor(representations.slice(0, 1));
    const thirty = await statementsFor(representations);
    expect(thirty.data.map((event: { eventId: string }) => event.eventId)).toEqual(
      events.map((e) => e.eventId),
    );
    expect(one.statements).toHaveLength(1);
    expect(thirty.statements, thirty.statements.join('\n---\n')).toHaveLength(1);
  });

  it('reads each type in one statement, as many representations of each as there are', async () => {
    const other = await boughtTicket(
      museum,
      { ticketType: 'general', ticketDate: upcomingOpenDay(2) },
      'other',
    );
    const otherId = (await museum.graphql('{ me { id } }', {}, { as: 'other' })).body.data.me.id;
    const secondOrder = await placedOrder(
      museum,
      {
        email: 'buyer@example.com',
        lines: [{ ticketType: 'general', ticketDate: upcomingOpenDay(2), quantity: 1 }],
      },
      'other',
    );
    const query = `query($r: [_Any!]!) { _entities(representations: $r) { __typename
      ... on Ticket { ticketId } ... on Order { orderId } ... on Account { name }
      ... on MuseumDay { date remaining } ... on SpecialEvent { eventId } } }`;
    const of = (n: 1 | 2) =>
      (
        [
          [ticket.ticketId, other.ticketId].map((ticketId) => ({ __typename: 'Ticket', ticketId })),
          [order.orderId, secondOrder.orderId].map((orderId) => ({ __typename: 'Order', orderId })),
          [visitorId, otherId].map((id) => ({ __typename: 'Account', id })),
          [upcomingOpenDay(1), upcomingOpenDay(2)].map((date) => ({ __typename: 'MuseumDay', date })),
          [events[3]!.eventId, events[4]!.eventId].map((eventId) => ({
            __typename: 'SpecialEvent',
            eventId,
          })),
        ] as Record<string, string>[][]
      ).flatMap((pair) => pair.slice(0, n));
    const statementsFor = async (representations: unknown[]) => {
      await museum.graphql(query, { r: representations }, { as: 'staff' });
      const { response, statements } = await statementsSentBy(() =>
        museum.graphql(query, { r: representations }, { as: 'staff' }),
      );
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data._entities).not.toContain(null);
      return statements;
    };
    const one = await statementsFor(of(1));
    const two = await statementsFor(of(2));
    // One per type, and the days' general admission left, read with the days.
    expect(one, one.join('\n---\n')).toHaveLength(6);
    expect(two, two.join('\n---\n')).toHaveLength(6);
  });

  it('counts in the query limits as any list: depth, and cost by its representations', () => {
    const measured = measureQuery(
      schema,
      parse(`{ _entities(representations: [{__typename: "SpecialEvent", eventId: "${UNKNOWN}"},
        {__typename: "SpecialEvent", eventId: "${UNKNOWN}"}]) { ... on SpecialEvent { name availability { date } } } }`),
    );
    expect(measured.depth).toBe(3);
    // Each: its name (1) and its availability (2), a list of 10 dates (1 each).
    expect(measured.cost).toBe(2 + 2 * (1 + 2 + 10));
  });

  it('reads the keys as the UUID scalar does, in either case', async () => {
    const response = await entitiesAs(
      [{ __typename: 'SpecialEvent', eventId: events[2]!.eventId.toUpperCase() }],
      'visitor',
    );
    expect(response.body.data._entities[0]).toMatchObject({ eventId: events[2]!.eventId });
  });
});

describe('_entities refuses', () => {
  it('without credentials, 401 with the Basic challenge, as every other field', async () => {
    const response = await entitiesAs([{ __typename: 'SpecialEvent', eventId: UNKNOWN }], 'anonymous');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="Museum API"/);
    expect(response.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(response.body.data).toBeUndefined();
  });

  it('more than 100 representations, naming the argument', async () => {
    const representations = Array.from({ length: 101 }, () => ({
      __typename: 'SpecialEvent',
      eventId: UNKNOWN,
    }));
    const response = await entitiesAs(representations, 'visitor');
    expect(response.status).toBe(200);
    expect(response.body.data).toBeNull();
    expect(response.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      errors: [{ path: 'representations', message: 'must hold at most 100 representations' }],
    });
  });

  it('each malformed representation, named by its index and field, and nothing is read', async () => {
    const { response, statements } = await statementsSentBy(() =>
      entitiesAs(
        [
          { __typename: 'SpecialEvent', eventId: UNKNOWN },
          { __typename: 'Shop', eventId: UNKNOWN },
          { eventId: UNKNOWN },
          { __typename: 'SpecialEvent' },
          { __typename: 'SpecialEvent', eventId: 'not-a-uuid' },
          { __typename: 'Ticket', ticketId: 42 },
          { __typename: 'MuseumDay', date: '2030-02-30' },
          { __typename: 'Account', id: UNKNOWN },
          'SpecialEvent',
        ],
        'visitor',
      ),
    );
    expect(response.status).toBe(200);
    expect(statements).toEqual([]);
    const [error] = response.body.errors;
    expect(error.path).toEqual(['_entities']);
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    const types = 'must be one of SpecialEvent, Ticket, Order, MuseumDay, Account';
    expect(error.extensions.errors).toEqual([
      { path: 'representations[1].__typename', message: types },
      { path: 'representations[2].__typename', message: types },
      { path: 'representations[3].eventId', message: 'is required: a UUID' },
      { path: 'representations[4].eventId', message: 'must be a UUID' },
      { path: 'representations[5].ticketId', message: 'must be a UUID' },
      { path: 'representations[6].date', message: 'must be a calendar date YYYY-MM-DD that exists' },
      { path: 'representations[7].id', message: 'must be the global id of an Account (Account.id)' },
      { path: 'representations[8]', message: expect.stringContaining('expected object') },
    ]);
  });

  it('a null in the list, as GraphQL types the argument, before anything runs', async () => {
    const literal = await museum.graphql(
      '{ _entities(representations: [null]) { __typename } }',
      {},
      { as: 'visitor' },
    );
    expect(literal.status).toBe(200);
    expect(literal.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const variable = await entitiesAs([{ __typename: 'SpecialEvent', eventId: UNKNOWN }, null], 'visitor');
    expect(variable.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      errors: [{ path: 'representations[1]', message: 'Expected non-nullable type "_Any!" not to be null.' }],
    });
  });

  it('a query whose cost, counted with its representations, is over the limit', async () => {
    const query = `query($r: [_Any!]!) { _entities(representations: $r) {
      ... on SpecialEvent { eventId name availability { date capacity remaining sold } } } }`;
    const fifty = Array.from({ length: 50 }, () => ({ __typename: 'SpecialEvent', eventId: UNKNOWN }));
    const few = await museum.graphql(query, { r: fifty.slice(0, 10) }, { as: 'visitor' });
    expect(few.body.errors).toBeUndefined();
    const many = await museum.graphql(query, { r: fifty }, { as: 'visitor' });
    expect(many.status).toBe(400);
    expect(many.body.errors[0]).toMatchObject({
      message: 'Query cost limit of 2000 exceeded, found 2202.',
      extensions: { code: 'QUERY_LIMIT_EXCEEDED', limit: 'cost' },
    });
    // Written in the document, they are counted when it is validated, as any list.
    const literal = `{ _entities(representations: [${fifty.map((r) => `{__typename: "SpecialEvent", eventId: "${r.eventId}"}`).join(', ')}]) {
      ... on SpecialEvent { eventId name availability { date capacity remaining sold } } } }`;
    const refused = await museum.graphql(literal, {}, { as: 'visitor' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.limit).toBe('cost');
  });
});

describe('_service', () => {
  it('answers the SDL a gateway composes, with the keys, to any account', async () => {
    for (const as of ['visitor', 'gate'] as const) {
      const response = await museum.graphql('{ _service { sdl } }', {}, { as });
      expect(response.body.errors).toBeUndefined();
      const { sdl } = response.body.data._service;
      expect(sdl).toMatch(
        /^extend schema\s+@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.6", import: \["@key"\]\)/,
      );
      for (const [type, key] of [
        ['SpecialEvent', 'eventId'],
        ['Ticket', 'ticketId'],
        ['Order', 'orderId'],
        ['MuseumDay', 'date'],
        ['Account', 'id'],
      ])
        expect(sdl).toMatch(new RegExp(`type ${type}\\b[^{]*@key\\(fields: "${key}"\\)`));
      expect(sdl).not.toContain('_entities');
    }
  });

  it('answers the same SDL when the query repeats (compiled from its second run), with the scalars as they are', async () => {
    const sdls = [];
    for (let run = 0; run < 3; run++)
      sdls.push((await museum.graphql('{ _service { sdl } }', {}, { as: 'visitor' })).body.data._service.sdl);
    expect(sdls[1]).toBe(sdls[0]);
    expect(sdls[2]).toBe(sdls[0]);
    expect(sdls[0]).toContain('eventId: UUID!');
  });

  it('needs credentials', async () => {
    const response = await museum.graphql('{ _service { sdl } }', {}, { as: 'anonymous' });
    expect(response.status).toBe(401);
    expect(response.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('with MUSEUM_TRUSTED_DOCUMENTS_ONLY', () => {
  let directory: string;
  let trusted: TestMuseum;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'museum-trusted-'));
    const manifest = join(directory, 'persisted-documents.json');
    const me = '{ me { name } }';
    writeFileSync(manifest, JSON.stringify({ [createHash('sha256').update(me).digest('hex')]: me }));
    trusted = await startMuseum({
      MUSEUM_TRUSTED_DOCUMENTS: manifest,
      MUSEUM_TRUSTED_DOCUMENTS_ONLY: 'true',
    });
  });
  afterAll(async () => {
    await trusted?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("refuses a visitor's _entities, as every document not in the manifest: a gateway's plans are (docs/federation.md)", async () => {
    const representations = [{ __typename: 'SpecialEvent', eventId: UNKNOWN }];
    const visitor = await trusted.graphql(ENTITIES, { representations }, { as: 'visitor' });
    expect(visitor.status).toBe(403);
    expect(visitor.body.errors[0]).toMatchObject({
      message: 'Only trusted documents may be run here: send a documentId',
      extensions: { code: 'FORBIDDEN' },
    });
    const staff = await trusted.graphql(ENTITIES, { representations }, { as: 'staff' });
    expect(staff.body).toEqual({ data: { _entities: [null] } });
  });
});
