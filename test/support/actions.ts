// What tests do again and again, each done one way, through REST as a client does it: buy a ticket, create
// an event, place an order. The `…ed` forms are for a test whose subject is elsewhere: they fail it, with the
// answer, unless the action succeeded.
import { type Caller, eventBody, type TestMuseum, type TestResponse } from './museum.ts';

type On = Pick<TestMuseum, 'rest'>;

/** What POST /tickets answers with 201. */
export interface BoughtTicket {
  ticketId: string;
  confirmationCode: string;
  ticketDate: string;
  ticketType: 'general' | 'event';
  eventId?: string;
}

/** POST /tickets: a general ticket for todd@example.com unless `body` says otherwise; the answer as it came. */
export const buyTicket = (
  on: On,
  body: Record<string, unknown>,
  as: Caller = 'visitor',
): Promise<TestResponse> =>
  on.rest('POST', '/tickets', { as, body: { ticketType: 'general', email: 'todd@example.com', ...body } });

/** A ticket bought as `buyTicket` buys it. */
export async function boughtTicket(
  on: On,
  body: Record<string, unknown>,
  as: Caller = 'visitor',
): Promise<BoughtTicket> {
  const response = await buyTicket(on, body, as);
  if (response.status !== 201) throw new Error(`buying a ticket: ${response.status} ${response.text}`);
  return response.body;
}

/** POST /special-events as staff, `eventBody(overrides)`; the answer as it came. */
export const createEvent = (on: On, overrides: Record<string, unknown> = {}) =>
  on.rest('POST', '/special-events', { as: 'staff', body: eventBody(overrides) });

/** An event created as `createEvent` creates it. */
export async function createdEvent(
  on: On,
  overrides: Record<string, unknown> = {},
): Promise<{ eventId: string; name: string; dates: string[]; price: number }> {
  const response = await createEvent(on, overrides);
  if (response.status !== 201) throw new Error(`creating an event: ${response.status} ${response.text}`);
  return response.body;
}

/** What POST /orders answers with 201: the fields the tests read. */
export interface PlacedOrder {
  orderId: string;
  status: string;
  total: number;
  currency: string;
  expiresAt?: string;
  checkoutUrl?: string;
  tickets: { ticketId: string; status: string; confirmationCode: string; price: number }[];
}

/** POST /orders with `body` ({ email, lines }); the answer as it came. */
export const placeOrder = (
  on: On,
  body: unknown,
  as: Caller = 'visitor',
  headers: Record<string, string> = {},
): Promise<TestResponse> => on.rest('POST', '/orders', { as, body, headers });

/** An order placed as `placeOrder` places it. */
export async function placedOrder(on: On, body: unknown, as: Caller = 'visitor'): Promise<PlacedOrder> {
  const response = await placeOrder(on, body, as);
  if (response.status !== 201) throw new Error(`placing an order: ${response.status} ${response.text}`);
  return response.body;
}
