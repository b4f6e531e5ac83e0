// Reading tickets (C3): GET /tickets/{ticketId}, its QR code, and GraphQL ticket(ticketId).
import jsqrModule from 'jsqr';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventBody, upcomingOpenDay } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

let general: any;
let eventTicket: any;
let eventId: string;

const museum = useMuseum();
beforeAll(async () => {
  general = (
    await museum.rest('POST', '/tickets', {
      as: 'visitor',
      body: { ticketType: 'general', ticketDate: upcomingOpenDay(1), email: 'todd@example.com' },
    })
  ).body;
  const event = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
  eventId = event.body.eventId;
  eventTicket = (
    await museum.rest('POST', '/tickets', {
      as: 'visitor',
      body: { ticketType: 'event', eventId, ticketDate: event.body.dates[0], email: 'todd@example.com' },
    })
  ).body;
});

// jsqr is CommonJS with an ES-style default in its types.
const jsQR = (jsqrModule as unknown as { default?: typeof jsqrModule.default }).default ?? jsqrModule.default;

const TICKET = `query($ticketId: UUID!) { ticket(ticketId: $ticketId) {
  message ticketId ticketType ticketDate confirmationCode eventId eventName status } }`;

describe('GET /tickets/{ticketId}', () => {
  it('shows the owner the confirmation with its status, over REST and GraphQL alike', async () => {
    const rest = await museum.rest('GET', `/tickets/${general.ticketId}`, { as: 'visitor' });
    expect(rest.status).toBe(200);
    // Beyond the purchase's reference answer, a ticket says what it cost (issue 36).
    expect(rest.body).toEqual({ ...general, category: 'adult', price: 20, status: 'valid' });
    const gql = await museum.graphql(TICKET, { ticketId: general.ticketId }, { as: 'visitor' });
    expect(gql.body.data.ticket).toEqual({ ...general, eventId: null, eventName: null, status: 'valid' });
  });

  it("lets staff see anyone's ticket, and hides it from other visitors as if it did not exist", async () => {
    expect((await museum.rest('GET', `/tickets/${general.ticketId}`, { as: 'staff' })).status).toBe(200);
    const other = await museum.rest('GET', `/tickets/${general.ticketId}`, { as: 'other' });
    const unknown = await museum.rest('GET', '/tickets/00000000-0000-4000-8000-000000000000', {
      as: 'other',
    });
    expect(other.status).toBe(404);
    expect(other.body).toEqual(unknown.body);
    expect(
      (await museum.graphql(TICKET, { ticketId: general.ticketId }, { as: 'other' })).body.data.ticket,
    ).toBeNull();
  });

  it('rejects a ticketId that is not a UUID with 400 and needs credentials', async () => {
    const bad = await museum.rest('GET', '/tickets/12345', { as: 'visitor' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('ticketId');
    expect((await museum.rest('GET', `/tickets/${general.ticketId}`, { as: 'anonymous' })).status).toBe(401);
  });
});

describe('GET /tickets/{ticketId}/qr', () => {
  const decode = (png: Buffer) => {
    const image = PNG.sync.read(png);
    return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
  };

  it('is a PNG whose QR code reads back as the confirmation code', async () => {
    for (const ticket of [general, eventTicket]) {
      const response = await museum.fetch(`http://museum.test/tickets/${ticket.ticketId}/qr`, {
        headers: { authorization: `Basic ${Buffer.from('visitor:visitor-password').toString('base64')}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(decode(Buffer.from(await response.arrayBuffer()))).toBe(ticket.confirmationCode);
    }
  });

  it('is for the owner and staff only', async () => {
    expect((await museum.rest('GET', `/tickets/${general.ticketId}/qr`, { as: 'staff' })).status).toBe(200);
    const other = await museum.rest('GET', `/tickets/${general.ticketId}/qr`, { as: 'other' });
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toBe('application/problem+json');
    expect((await museum.rest('GET', `/tickets/${general.ticketId}/qr`, { as: 'anonymous' })).status).toBe(
      401,
    );
    expect((await museum.rest('GET', '/tickets/nope/qr', { as: 'visitor' })).status).toBe(400);
  });
});

describe('tickets of a deleted event', () => {
  it('are kept and read as cancelled', async () => {
    expect((await museum.rest('DELETE', `/special-events/${eventId}`, { as: 'staff' })).status).toBe(204);
    const response = await museum.rest('GET', `/tickets/${eventTicket.ticketId}`, { as: 'visitor' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ ticketId: eventTicket.ticketId, status: 'cancelled', eventId });
  });
});
