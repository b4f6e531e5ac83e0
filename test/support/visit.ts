// What the tests of a visit (orders, check-ins, cancellation) share: GraphQL documents, order bodies, and a
// museum that is open today, so that today's tickets can be bought and checked in whatever the weekday.

import { execute } from './db.ts';
import type { TestMuseum } from './museum.ts';

export const TICKET_FIELDS =
  'message ticketId ticketType ticketDate confirmationCode eventId eventName status checkedInAt';
export const ORDER_FIELDS = `orderId email createdAt tickets { ${TICKET_FIELDS} }`;

export const PLACE_ORDER = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { ${ORDER_FIELDS} } }`;
export const ORDER_QUERY = `query($orderId: UUID!) { order(orderId: $orderId) { ${ORDER_FIELDS} } }`;
export const CANCEL_ORDER = 'mutation($orderId: UUID!) { cancelOrder(orderId: $orderId) }';
export const CANCEL_TICKET = 'mutation($ticketId: UUID!) { cancelTicket(ticketId: $ticketId) }';
export const CHECK_IN = `mutation($input: CheckInInput!) { checkIn(input: $input) { ${TICKET_FIELDS} } }`;
export const TICKET_QUERY = `query($ticketId: UUID!) { ticket(ticketId: $ticketId) { ${TICKET_FIELDS} } }`;

export const general = (ticketDate: string, quantity = 1) => ({
  ticketType: 'general',
  ticketDate,
  quantity,
});
export const eventLine = (eventId: string, ticketDate: string, quantity = 1) => ({
  ticketType: 'event',
  eventId,
  ticketDate,
  quantity,
});
export const order = (...lines: Record<string, unknown>[]) => ({ email: 'family@example.com', lines });

/**
 * Opens the museum today (special hours), so that general tickets for today can be sold: today in the
 * museum's time zone, which is already tomorrow in UTC's late evening for a museum east of it.
 */
export async function openToday(museum: TestMuseum): Promise<string> {
  const today = museum.deps.clock.today();
  const response = await museum.graphql(
    'mutation($input: SetDayHoursInput!) { setDayHours(input: $input) { date } }',
    { input: { date: today, timeOpen: '00:00', timeClose: '23:59' } },
    { as: 'staff' },
  );
  if (response.body.errors) throw new Error(`could not open today: ${response.text}`);
  return today;
}

/** Counts of a date's general tickets in the database: sold, and not cancelled. */
export async function generalTickets(museum: TestMuseum, date: string) {
  const [row] = await execute<{ sold: number; kept: number }[]>(
    museum.deps.db,
    `select count(*)::int as sold, (count(*) filter (where cancelled_at is null))::int as kept
     from ticket where ticket_type = 'general' and ticket_date = $1`,
    [date],
  );
  return row!;
}
