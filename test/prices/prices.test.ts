// The price list by visitor category (issue 36): read by any account, replaced by staff, over REST and
// GraphQL; per-category event prices; what tickets and orders cost, and that it never changes once sold.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, expectValidation, graphqlPaths } from '../support/assertions.ts';
import { execute } from '../support/db.ts';
import { addGateAccount, type Caller, eventBody, upcomingOpenDay } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';
import { eventLine, general, order } from '../support/visit.ts';

const museum = useMuseum({ MUSEUM_CURRENCY: 'CHF' });
beforeAll(() => addGateAccount(museum));

const DEFAULT_LIST = {
  currency: 'CHF',
  categories: [
    { category: 'adult', name: 'Adult', generalAdmission: 20 },
    { category: 'reduced', name: 'Reduced', generalAdmission: 14 },
    { category: 'child', name: 'Child', generalAdmission: 8 },
  ],
};

const PRICE_LIST = 'query { priceList { currency categories { category name generalAdmission } } }';
const SET_PRICE_LIST = `mutation($input: SetPriceListInput!) {
  setPriceList(input: $input) { currency categories { category name generalAdmission } } }`;

const setPrices = (categories: unknown[], as: Caller = 'staff') =>
  museum.rest('PUT', '/prices', { as, body: { categories } });

/** Reads a ticket as its owner sees it over REST. */
const ticketOf = async (ticketId: string) => (await museum.rest('GET', `/tickets/${ticketId}`)).body;

describe('the price list', () => {
  it('a fresh database has the documented default list, read alike by every account over REST and GraphQL', async () => {
    for (const as of ['visitor', 'staff', 'gate'] as const) {
      const rest = await museum.rest('GET', '/prices', { as });
      expect(rest.status, rest.text).toBe(200);
      expect(rest.body).toEqual(DEFAULT_LIST);
      const graphql = await museum.graphql(PRICE_LIST, {}, { as });
      expect(graphql.body.data.priceList).toEqual(DEFAULT_LIST);
    }
  });

  it('is not read without credentials (401) and replaced by staff only (403 for visitor and gate)', async () => {
    expectProblem(await museum.rest('GET', '/prices', { as: 'anonymous' }), 401, 'Unauthorized');
    for (const as of ['visitor', 'gate'] as const) {
      expectProblem(await setPrices(DEFAULT_LIST.categories, as), 403, 'Forbidden');
      const graphql = await museum.graphql(SET_PRICE_LIST, { input: { categories: [] } }, { as });
      expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    expect((await museum.rest('GET', '/prices')).body).toEqual(DEFAULT_LIST);
  });

  it.each([
    [
      'a negative price',
      [{ category: 'adult', name: 'Adult', generalAdmission: -1 }],
      'categories[0].generalAdmission',
    ],
    [
      'a price with 3 decimals',
      [{ category: 'adult', name: 'Adult', generalAdmission: 1.005 }],
      'categories[0].generalAdmission',
    ],
    [
      'a category listed twice',
      [
        { category: 'adult', name: 'Adult', generalAdmission: 1 },
        { category: 'adult', name: 'Again', generalAdmission: 2 },
      ],
      'categories[1].category',
    ],
    [
      'a key with capitals',
      [{ category: 'Adult', name: 'Adult', generalAdmission: 1 }],
      'categories[0].category',
    ],
    ['no adult category', [{ category: 'child', name: 'Child', generalAdmission: 1 }], 'categories'],
    ['no category at all', [], 'categories'],
    ['a blank name', [{ category: 'adult', name: ' ', generalAdmission: 1 }], 'categories[0].name'],
  ])(
    'refuses %s: 400 naming the field over REST and GraphQL, nothing written',
    async (_, categories, field) => {
      expectValidation(await setPrices(categories), field);
      const graphql = await museum.graphql(SET_PRICE_LIST, { input: { categories } }, { as: 'staff' });
      expect(graphqlPaths(graphql.body)).toContain(`input.${field}`);
      expect((await museum.rest('GET', '/prices')).body).toEqual(DEFAULT_LIST);
    },
  );
});

describe('what tickets and orders cost', () => {
  it('a reference purchase is an adult ticket at the adult price; a category pays its own; the price never changes once sold', async () => {
    const day = upcomingOpenDay(2);
    const adult = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: day, email: 'todd@example.com' },
    });
    expect(adult.status, adult.text).toBe(201);
    // A client of the reference gets the reference's answer; the ticket says the rest.
    expect(adult.body.category).toBeUndefined();
    expect(await ticketOf(adult.body.ticketId)).toMatchObject({ category: 'adult', price: 20 });
    const named = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: day, email: 'todd@example.com', category: 'reduced' },
    });
    expect(named.body).toMatchObject({ category: 'reduced', price: 14 });
    const child = await museum.graphql(
      `mutation($input: BuyMuseumTicketsInput!) { buyMuseumTickets(input: $input) { ticketId category price entryTime } }`,
      { input: { ticketType: 'general', ticketDate: day, email: 'todd@example.com', category: 'child' } },
    );
    expect(child.body.data.buyMuseumTickets).toMatchObject({ category: 'child', price: 8, entryTime: null });

    // New prices: 24.50 for adults, children free. Sold tickets keep what they cost.
    const changed = await setPrices([
      { category: 'adult', name: 'Adult', generalAdmission: 24.5 },
      { category: 'child', name: 'Child', generalAdmission: 0 },
    ]);
    expect(changed.status, changed.text).toBe(200);
    expect(await ticketOf(adult.body.ticketId)).toMatchObject({ category: 'adult', price: 20 });
    expect(await ticketOf(child.body.data.buyMuseumTickets.ticketId)).toMatchObject({
      category: 'child',
      price: 8,
    });
    const after = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: day, email: 'todd@example.com', category: 'adult' },
    });
    expect(after.body.price).toBe(24.5);

    // `reduced` left the list: buying in it is a 400 naming the field, and nothing is sold.
    const refused = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: day, email: 'todd@example.com', category: 'reduced' },
    });
    expectValidation(refused, 'category');
    expect(refused.body.detail).toContain('adult, child');
    await setPrices(DEFAULT_LIST.categories);
  });

  it('an event charges each category its own price or the event price; an order answers its total and currency', async () => {
    const day = upcomingOpenDay(4);
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates: [day], price: 30, prices: [{ category: 'child', price: 12.5 }] }),
    });
    expect(created.status, created.text).toBe(201);
    // REST answers the prices as they were sent; GraphQL also lists what every category pays.
    const own = [{ category: 'child', price: 12.5 }];
    expect(created.body.prices).toEqual(own);
    expect((await museum.rest('GET', `/special-events/${created.body.eventId}`)).body.prices).toEqual(own);
    const prices = [
      { category: 'adult', price: 30 },
      { category: 'reduced', price: 30 },
      { category: 'child', price: 12.5 },
    ];
    const listed = await museum.graphql(
      `query($s: Date, $e: Date) { specialEvents(startDate: $s, endDate: $e) {
        eventId prices { category price } ownPrices { category price } } }`,
      { s: day, e: day },
    );
    expect(
      listed.body.data.specialEvents.find((e: { eventId: string }) => e.eventId === created.body.eventId),
    ).toEqual({ eventId: created.body.eventId, prices, ownPrices: own });

    const placed = await museum.rest('POST', '/orders', {
      body: order(
        { ...general(day, 2) },
        { ...general(day), category: 'child' },
        { ...eventLine(created.body.eventId, day), category: 'child' },
        eventLine(created.body.eventId, day),
      ),
    });
    expect(placed.status, placed.text).toBe(201);
    expect(
      placed.body.tickets.map((t: { category: string; price: number }) => [t.category, t.price]),
    ).toEqual([
      ['adult', 20],
      ['adult', 20],
      ['child', 8],
      ['child', 12.5],
      ['adult', 30],
    ]);
    expect(placed.body).toMatchObject({ total: 90.5, currency: 'CHF' });

    // A change of the event's prices leaves the order as it was.
    const updated = await museum.rest('PATCH', `/special-events/${created.body.eventId}`, {
      as: 'staff',
      body: { price: 45, prices: [] },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.prices).toBeUndefined();
    const repriced = await museum.graphql(
      'query($id: UUID!) { specialEvent(eventId: $id) { prices { category price } ownPrices { category } } }',
      { id: created.body.eventId },
    );
    expect(repriced.body.data.specialEvent).toEqual({
      prices: prices.map((p) => ({ ...p, price: 45 })),
      ownPrices: null,
    });
    const read = await museum.rest('GET', `/orders/${placed.body.orderId}`);
    expect(read.body).toMatchObject({ total: 90.5, currency: 'CHF' });
  });

  it('keeps a category that a listed event still prices: 409 naming categories, until the event drops it', async () => {
    const day = upcomingOpenDay(6);
    const event = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates: [day], prices: [{ category: 'reduced', price: 5 }] }),
    });
    const withoutReduced = DEFAULT_LIST.categories.filter((c) => c.category !== 'reduced');
    const refused = await setPrices(withoutReduced);
    expectProblem(refused, 409, 'Conflict');
    expect(refused.body.errors[0].path).toBe('categories');
    expect(refused.body.detail).toContain('reduced (1 event)');
    const graphql = await museum.graphql(
      SET_PRICE_LIST,
      { input: { categories: withoutReduced } },
      { as: 'staff' },
    );
    expect(graphql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(graphqlPaths(graphql.body)).toEqual(['input.categories']);
    expect((await museum.rest('GET', '/prices')).body).toEqual(DEFAULT_LIST);

    // Once the event's own prices are gone (or the event is), the category may leave the list.
    await museum.rest('PATCH', `/special-events/${event.body.eventId}`, {
      as: 'staff',
      body: { prices: [] },
    });
    expect((await setPrices(withoutReduced)).status).toBe(200);
    await setPrices(DEFAULT_LIST.categories);
  });

  it.each([
    ['a negative price', [{ category: 'child', price: -1 }], 'prices[0].price'],
    ['a price with 3 decimals', [{ category: 'child', price: 2.555 }], 'prices[0].price'],
    [
      'a category twice',
      [
        { category: 'child', price: 1 },
        { category: 'child', price: 2 },
      ],
      'prices[1].category',
    ],
  ])('refuses an event price that is %s, naming the field', async (_, prices, field) => {
    expectValidation(
      await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody({ prices }) }),
      field,
    );
  });

  it('refuses an unknown category naming the field: a ticket, an order line, an event price; nothing is sold or written', async () => {
    const day = upcomingOpenDay(5);
    expectValidation(
      await museum.rest('POST', '/tickets', {
        body: { ticketType: 'general', ticketDate: day, email: 'todd@example.com', category: 'pensioner' },
      }),
      'category',
    );
    expectValidation(
      await museum.rest('POST', '/orders', {
        body: order(general(day), { ...general(day), category: 'pensioner' }),
      }),
      'lines[1].category',
    );
    expectValidation(
      await museum.rest('POST', '/tickets', {
        body: { ticketType: 'general', ticketDate: day, email: 'todd@example.com', category: 'NOT A KEY' },
      }),
      'category',
    );
    const event = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates: [day], prices: [{ category: 'pensioner', price: 1 }] }),
    });
    expectValidation(event, 'prices[0].category');
    const graphql = await museum.graphql(
      'mutation($input: CreateSpecialEventInput!) { createSpecialEvent(input: $input) { eventId } }',
      {
        input: eventBody({
          dates: [day],
          prices: [
            { category: 'child', price: 1 },
            { category: 'child', price: 2 },
          ],
        }),
      },
      { as: 'staff' },
    );
    expect(graphqlPaths(graphql.body)).toContain('input.prices[1].category');
    const [sold] = await execute<{ tickets: number; events: number }[]>(
      museum.deps.db,
      'select (select count(*)::int from ticket where ticket_date = $1) as tickets, (select count(*)::int from special_event_date where date = $2) as events',
      [day, day],
    );
    expect(sold).toEqual({ tickets: 0, events: 0 });
  });
});
