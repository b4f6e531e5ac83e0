// Check-in at the door (issue 27, C8): POST /check-ins and checkIn, for gate and staff accounts; each answer
// over REST and GraphQL; the QR code as a scanner reads it; what a gate account may do besides; the metrics
// and the log line of a refusal.
import jsqrModule from 'jsqr';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { boughtTicket } from '../support/actions.ts';
import { expectProblem, expectValidation } from '../support/assertions.ts';
import { addGateAccount, basic, type Caller, eventBody, GATE, upcomingOpenDay } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';
import { CHECK_IN, openToday, TICKET_QUERY } from '../support/visit.ts';

// jsqr is CommonJS with an ES-style default in its types.
const jsQR = (jsqrModule as unknown as { default?: typeof jsqrModule.default }).default ?? jsqrModule.default;

/** The log lines of this file's museum, as pino writes them. */
const logged: Record<string, unknown>[] = [];
const logger = createLogger('info', {
  write: (line: string) => {
    logged.push(JSON.parse(line));
  },
});
const museum = useMuseum({}, { logger });

let today: string;
beforeAll(async () => {
  await addGateAccount(museum);
  today = await openToday(museum);
});

const buy = (ticketDate: string, as: Caller = 'visitor') => boughtTicket(museum, { ticketDate }, as);
const scan = (confirmationCode: string, as: Caller = 'gate') =>
  museum.rest('POST', '/check-ins', { as, body: { confirmationCode } });
const scanGraphql = (confirmationCode: string, as: Caller = 'gate') =>
  museum.graphql(CHECK_IN, { input: { confirmationCode } }, { as });

describe('POST /check-ins', () => {
  it('admits a ticket valid today: 201 with the ticket, now used, and when', async () => {
    const ticket = await buy(today);
    const before = Date.now();
    const response = await scan(ticket.confirmationCode);
    expect(response.status, response.text).toBe(201);
    expect(response.headers.get('location')).toBe(`/tickets/${ticket.ticketId}`);
    expect(response.body).toEqual({
      ...ticket,
      category: 'adult',
      price: 20,
      status: 'used',
      checkedInAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Date.parse(response.body.checkedInAt)).toBeGreaterThanOrEqual(before - 1000);
    expect((await museum.rest('GET', `/tickets/${ticket.ticketId}`)).body.status).toBe('used');
    const read = await museum.graphql(TICKET_QUERY, { ticketId: ticket.ticketId });
    expect(read.body.data.ticket).toMatchObject({ status: 'used', checkedInAt: response.body.checkedInAt });
  });

  it('refuses a second scan: 409 already checked in, with when', async () => {
    const ticket = await buy(today);
    const first = await scan(ticket.confirmationCode);
    const second = await scan(ticket.confirmationCode);
    expectProblem(second, 409, 'Conflict');
    expect(second.body.detail).toBe(`already checked in at ${first.body.checkedInAt}`);
    expect(second.body.errors).toEqual([{ path: 'confirmationCode', message: second.body.detail }]);
    const gql = await scanGraphql(ticket.confirmationCode);
    expect(gql.body.errors[0].message).toBe(`already checked in at ${first.body.checkedInAt}`);
    expect(gql.body.errors[0].extensions).toMatchObject({
      code: 'CONFLICT',
      errors: [{ path: 'input.confirmationCode' }],
    });
  });

  it("refuses a ticket for another day: 409 not valid today, with the ticket's date", async () => {
    const tomorrowsDate = upcomingOpenDay(0);
    const ticket = await buy(tomorrowsDate);
    const response = await scan(ticket.confirmationCode);
    expectProblem(response, 409, 'Conflict');
    expect(response.body.detail).toBe(`not valid today (${today}): the ticket is for ${tomorrowsDate}`);
    expect((await scanGraphql(ticket.confirmationCode)).body.errors[0]).toMatchObject({
      message: response.body.detail,
      extensions: { code: 'CONFLICT' },
    });
    expect((await museum.rest('GET', `/tickets/${ticket.ticketId}`)).body.status).toBe('valid');
  });

  it('refuses a cancelled ticket, and one whose event was cancelled: 409 cancelled', async () => {
    const ticket = await buy(today);
    expect((await museum.rest('DELETE', `/tickets/${ticket.ticketId}`, { as: 'staff' })).status).toBe(204);
    const response = await scan(ticket.confirmationCode);
    expectProblem(response, 409, 'Conflict');
    expect(response.body.detail).toMatch(/^cancelled/);
    expect((await scanGraphql(ticket.confirmationCode)).body.errors[0].extensions.code).toBe('CONFLICT');

    const event = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates: [today] }),
    });
    const eventTicket = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'event', eventId: event.body.eventId, ticketDate: today, email: 'a@example.com' },
    });
    await museum.rest('DELETE', `/special-events/${event.body.eventId}`, { as: 'staff' });
    const deleted = await scan(eventTicket.body.confirmationCode);
    expect(deleted.status).toBe(409);
    expect(deleted.body.detail).toMatch(/^cancelled/);
  });

  it('answers an unknown code 404 and a malformed one 400, naming confirmationCode', async () => {
    const unknown = await scan('ticket-general-000000-00000');
    expectProblem(unknown, 404, 'Not found');
    expect(unknown.body.errors).toEqual([
      { path: 'confirmationCode', message: 'is not the code of any ticket' },
    ]);
    expect((await scanGraphql('ticket-general-000000-00000')).body.errors[0].extensions.code).toBe(
      'NOT_FOUND',
    );
    for (const code of ['', 'nope', 'TICKET-GENERAL-E5E5C6-DCE78', 'ticket-general-e5e5c6-dce78 ']) {
      expectValidation(await scan(code), 'confirmationCode');
      expect((await scanGraphql(code)).body.errors[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        errors: [{ path: 'input.confirmationCode' }],
      });
    }
    expectValidation(await museum.rest('POST', '/check-ins', { as: 'gate', body: {} }), 'confirmationCode');
  });

  it('is for gate and staff accounts: a visitor is 403 (its own ticket too), no credentials 401', async () => {
    const ticket = await buy(today);
    const visitor = await scan(ticket.confirmationCode, 'visitor');
    expectProblem(visitor, 403, 'Forbidden');
    expect(visitor.body.detail).toBe('This operation needs the gate or staff role');
    expect((await scanGraphql(ticket.confirmationCode, 'visitor')).body.errors[0].extensions.code).toBe(
      'FORBIDDEN',
    );
    expectProblem(await scan(ticket.confirmationCode, 'anonymous'), 401, 'Unauthorized');
    expect((await scanGraphql(ticket.confirmationCode, 'anonymous')).status).toBe(401);
    expect((await museum.rest('GET', `/tickets/${ticket.ticketId}`)).body.status).toBe('valid');
    const staff = await scanGraphql(ticket.confirmationCode, 'staff');
    expect(staff.body.data.checkIn).toMatchObject({ ticketId: ticket.ticketId, status: 'used' });
  });
});

describe('the QR code of a ticket', () => {
  it('holds exactly what POST /check-ins takes: read by jsqr, it checks the ticket in', async () => {
    const ticket = await buy(today);
    const png = await museum.fetch(`http://museum.test/tickets/${ticket.ticketId}/qr`, {
      headers: { authorization: basic('visitor', 'visitor-password') },
    });
    expect(png.headers.get('content-type')).toBe('image/png');
    const image = PNG.sync.read(Buffer.from(await png.arrayBuffer()));
    const read = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
    expect(read).toBe(ticket.confirmationCode);
    const response = await scan(read!);
    expect(response.status).toBe(201);
    expect(response.body.ticketId).toBe(ticket.ticketId);
  });
});

describe('a gate account', () => {
  it("reads anyone's ticket (and its QR code), over REST and GraphQL", async () => {
    const ticket = await buy(upcomingOpenDay(1), 'other');
    expect((await museum.rest('GET', `/tickets/${ticket.ticketId}`, { as: 'gate' })).body).toMatchObject({
      ticketId: ticket.ticketId,
      status: 'valid',
    });
    expect((await museum.rest('GET', `/tickets/${ticket.ticketId}/qr`, { as: 'gate' })).status).toBe(200);
    const gql = await museum.graphql(TICKET_QUERY, { ticketId: ticket.ticketId }, { as: 'gate' });
    expect(gql.body.data.ticket.ticketId).toBe(ticket.ticketId);
    expect((await museum.graphql('{ me { name role } }', {}, { as: 'gate' })).body.data.me).toEqual({
      name: GATE.name,
      role: 'gate',
    });
  });

  it('may do nothing else: 403 naming the roles that may', async () => {
    const ticket = await buy(upcomingOpenDay(1));
    for (const [method, path, body] of [
      ['GET', '/museum-hours'],
      ['GET', '/special-events'],
      ['POST', '/tickets', { ticketType: 'general', ticketDate: upcomingOpenDay(1), email: 'a@example.com' }],
      ['DELETE', `/tickets/${ticket.ticketId}`],
      ['POST', '/special-events', eventBody()],
      ['GET', '/webhook-subscriptions'],
    ] as const) {
      const response = await museum.rest(method, path, { as: 'gate', body });
      expectProblem(response, 403, 'Forbidden');
    }
    const hours = await museum.rest('GET', '/museum-hours', { as: 'gate' });
    expect(hours.body.detail).toBe('This operation needs the visitor or staff role');
    for (const query of ['{ specialEvents { eventId } }', '{ museumHours { date } }']) {
      expect((await museum.graphql(query, {}, { as: 'gate' })).body.errors[0].extensions.code).toBe(
        'FORBIDDEN',
      );
    }
  });
});

describe('what a scan leaves behind', () => {
  it('counts check-ins by outcome in /metrics', async () => {
    const count = async (outcome: string) => {
      const metrics = await museum.request('GET', '/metrics');
      const line = metrics.text
        .split('\n')
        .find((l) => l.startsWith(`museum_check_ins_total{outcome="${outcome}"}`));
      return Number(line?.split(' ')[1]);
    };
    const [admitted, already, unknown] = [
      await count('admitted'),
      await count('already_checked_in'),
      await count('unknown'),
    ];
    const ticket = await buy(today);
    await scan(ticket.confirmationCode);
    await scan(ticket.confirmationCode);
    await scan('ticket-event-000000-00000');
    expect([await count('admitted'), await count('already_checked_in'), await count('unknown')]).toEqual([
      admitted + 1,
      already + 1,
      unknown + 1,
    ]);
    expect(await count('not_valid_today')).toBeGreaterThanOrEqual(0);
  });

  it('logs a refusal at info with the gate account, and no confirmation code', async () => {
    const ticket = await buy(upcomingOpenDay(2));
    logged.length = 0;
    await scan(ticket.confirmationCode);
    const refusal = logged.find((line) => line.message === 'check-in refused');
    expect(refusal).toMatchObject({
      level: 'info',
      account: GATE.name,
      outcome: 'not_valid_today',
      ticketId: ticket.ticketId,
    });
    expect(JSON.stringify(logged)).not.toContain(ticket.confirmationCode);
  });
});

describe('concurrent scans of one ticket', () => {
  it('admit exactly one of 20; the others are told it is checked in', async () => {
    const ticket = await buy(today);
    const responses = await Promise.all(Array.from({ length: 20 }, () => scan(ticket.confirmationCode)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const admitted = responses.find((r) => r.status === 201)!.body.checkedInAt;
    for (const refused of responses.filter((r) => r.status === 409))
      expect(refused.body.detail).toBe(`already checked in at ${admitted}`);
  });
});
