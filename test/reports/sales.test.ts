// The sales report (issue 36): staff only, REST and GraphQL alike, as CSV for a spreadsheet, and equal to a
// count made from the tickets themselves after a mixed run of concurrent sales, cancellations and check-ins.
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/common/dates.ts';
import { expectProblem, expectValidation, graphqlPaths } from '../support/assertions.ts';
import { addGateAccount, eventBody, upcomingOpenDay } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';
import { eventLine, general, openToday, order } from '../support/visit.ts';

const museum = useMuseum();
beforeAll(() => addGateAccount(museum));

const SALES = `query($s: Date!, $e: Date!) { sales(startDate: $s, endDate: $e) {
  currency startDate endDate rows { date ticketType eventId eventName category sold cancelled checkedIn revenue } } }`;

const report = (startDate: string, endDate: string, headers: Record<string, string> = {}) =>
  museum.rest('GET', `/reports/sales?startDate=${startDate}&endDate=${endDate}`, { as: 'staff', headers });

/**
 * The report as counted here from the tickets themselves, each read as its buyer's staff would read it
 * (`GET /tickets/{ticketId}`: its status, category and price), independently of the report's statement.
 */
async function countedFromTickets(ticketIds: string[]) {
  const rows = new Map<string, { sold: number; cancelled: number; checkedIn: number; revenue: number }>();
  for (const ticketId of ticketIds) {
    const { body: t } = await museum.rest('GET', `/tickets/${ticketId}`, { as: 'staff' });
    const key = [t.ticketDate, t.ticketType, t.eventId ?? null, t.category].join('|');
    const row = rows.get(key) ?? { sold: 0, cancelled: 0, checkedIn: 0, revenue: 0 };
    row.sold += 1;
    if (t.status === 'cancelled') row.cancelled += 1;
    else row.revenue = Math.round(row.revenue * 100 + t.price * 100) / 100;
    if (t.status === 'used') row.checkedIn += 1;
    rows.set(key, row);
  }
  return rows;
}

describe('the sales report', () => {
  it('equals what the tickets say after concurrent sales, cancellations and check-ins; REST, GraphQL and CSV agree', async () => {
    const today = await openToday(museum);
    const later = upcomingOpenDay(3);
    const event = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({
        name: 'Tea, "scones", and jam',
        dates: [today, later],
        price: 12.5,
        prices: [{ category: 'child', price: 4.25 }],
      }),
    });
    const eventId = event.body.eventId;
    // The later day has timed entry: its general tickets name a slot.
    await museum.graphql(
      'mutation($input: SetDayEntrySlotsInput!) { setDayEntrySlots(input: $input) { date } }',
      { input: { date: later, minutes: 60, capacity: 100 } },
      { as: 'staff' },
    );
    const orderOf = (i: number) => {
      const category = ['adult', 'child', 'reduced'][i % 3];
      const day = i % 2 ? today : later;
      const entryTime = day === later ? '10:00' : undefined;
      return i % 4 < 2
        ? order(
            { ...general(day, 1 + (i % 3)), category, entryTime },
            { ...eventLine(eventId, day), category },
          )
        : order({ ...eventLine(eventId, day, 2), category });
    };
    const place = (i: number) => museum.rest('POST', '/orders', { body: orderOf(i) });
    const firstWave = await Promise.all(Array.from({ length: 16 }, (_, i) => place(i)));
    expect(firstWave.map((r) => r.status)).toEqual(firstWave.map(() => 201));
    const bought = firstWave.flatMap(
      (r) => r.body.tickets as { ticketId: string; ticketDate: string; confirmationCode: string }[],
    );
    // Every fifth ticket is cancelled (staff, so today's too) and every seventh of today's checked in, while a
    // second wave of orders is placed, all at once.
    const cancels = bought.filter((_, i) => i % 5 === 0);
    const scans = bought.filter((t, i) => i % 7 === 3 && t.ticketDate === today);
    const [secondWave, outcomes] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, (_, i) => place(16 + i))),
      Promise.all([
        ...cancels.map((t) => museum.rest('DELETE', `/tickets/${t.ticketId}`, { as: 'staff' })),
        ...scans.map((t) =>
          museum.rest('POST', '/check-ins', { as: 'gate', body: { confirmationCode: t.confirmationCode } }),
        ),
      ]),
    ]);
    expect(secondWave.map((r) => r.status)).toEqual(secondWave.map(() => 201));
    // A ticket both scanned and cancelled at once is one of them (the other 409).
    expect(outcomes.map((r) => r.status).filter((status) => ![201, 204, 409].includes(status))).toEqual([]);
    const tickets = [...bought, ...secondWave.flatMap((r) => r.body.tickets as { ticketId: string }[])];

    const startDate = addDays(today, -1);
    const endDate = addDays(later, 1);
    const rest = await report(startDate, endDate);
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toMatchObject({ currency: 'EUR', startDate, endDate });
    const expected = await countedFromTickets(tickets.map((t) => t.ticketId));
    const got = new Map(
      rest.body.rows.map((row: Record<string, unknown>) => [
        [row.date, row.ticketType, row.eventId ?? null, row.category].join('|'),
        { sold: row.sold, cancelled: row.cancelled, checkedIn: row.checkedIn, revenue: row.revenue },
      ]),
    );
    expect(got).toEqual(expected);
    expect(
      rest.body.rows.filter((r: { eventName?: string }) => r.eventName === 'Tea, "scones", and jam').length,
    ).toBeGreaterThan(0);
    expect([...expected.values()].some((row) => row.cancelled > 0 && row.checkedIn > 0)).toBe(true);

    const graphql = await museum.graphql(SALES, { s: startDate, e: endDate }, { as: 'staff' });
    expect(
      graphql.body.data.sales.rows.map((row: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null)),
      ),
    ).toEqual(rest.body.rows);

    const csv = await report(startDate, endDate, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('vary')).toContain('Accept');
    expect(csv.text.split('\r\n')[0]).toBe(
      'date,ticketType,eventId,eventName,category,sold,cancelled,checkedIn,revenue,currency',
    );
    const records = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(records).toEqual(
      rest.body.rows.map((row: Record<string, unknown>) => ({
        date: row.date,
        ticketType: row.ticketType,
        eventId: row.eventId ?? '',
        eventName: row.eventName ?? '',
        category: row.category,
        sold: String(row.sold),
        cancelled: String(row.cancelled),
        checkedIn: String(row.checkedIn),
        revenue: String(row.revenue),
        currency: 'EUR',
      })),
    );
    // JSON stays the default, and what a browser asks for first gets JSON too.
    expect(
      (
        await report(startDate, endDate, { accept: 'text/html, application/json;q=0.9, */*;q=0.8' })
      ).headers.get('content-type'),
    ).toContain('application/json');
  });

  it('keeps a text a spreadsheet would run as a formula from running', async () => {
    const day = upcomingOpenDay(8);
    const event = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ name: '=HYPERLINK("http://evil.example","free tickets")', dates: [day] }),
    });
    await museum.rest('POST', '/orders', { body: order(eventLine(event.body.eventId, day)) });
    const csv = await report(day, day, { accept: 'text/csv' });
    const [row] = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(row!.eventName).toBe(`'=HYPERLINK("http://evil.example","free tickets")`);
  });

  it('refuses a range over 366 days, a reversed range or a missing date, naming the field', async () => {
    const start = upcomingOpenDay(0);
    expectValidation(await report(start, addDays(start, 366)), 'endDate');
    expect((await report(start, addDays(start, 365))).status).toBe(200);
    expectValidation(await report(start, addDays(start, -1)), 'endDate');
    expectValidation(
      await museum.rest('GET', `/reports/sales?endDate=${start}`, { as: 'staff' }),
      'startDate',
    );
    expectValidation(await report('2030-02-30', start), 'startDate');
    const graphql = await museum.graphql(SALES, { s: start, e: addDays(start, 400) }, { as: 'staff' });
    expect(graphqlPaths(graphql.body)).toEqual(['endDate']);
  });

  it('is for staff only: 403 for a visitor and a gate, 401 without credentials', async () => {
    const day = upcomingOpenDay(0);
    for (const as of ['visitor', 'gate'] as const)
      expectProblem(
        await museum.rest('GET', `/reports/sales?startDate=${day}&endDate=${day}`, { as }),
        403,
        'Forbidden',
      );
    expectProblem(
      await museum.rest('GET', `/reports/sales?startDate=${day}&endDate=${day}`, { as: 'anonymous' }),
      401,
      'Unauthorized',
    );
  });
});
