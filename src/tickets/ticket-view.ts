import type { Principal } from '../accounts/authenticator.ts';
import type { Queryable } from '../db/sql.ts';
import { PURCHASE_MESSAGES } from './tickets.rules.ts';
import { TICKET_BY_ID, type TicketView } from './tickets.views.queries.ts';

/** A row of TICKET_VIEW_COLUMNS as the API shows it. */
export const toTicketView = (row: Omit<TicketView, 'message'>): TicketView => ({
  message: PURCHASE_MESSAGES[row.ticketType],
  ...row,
});

/** Whether a caller may read any ticket (staff, and a door scanner), rather than only its own. */
export const readsAnyTicket = (viewer: Principal) => viewer.role === 'staff' || viewer.role === 'gate';

/** A ticket as its owner, staff or a gate may see it; anyone else gets null, as if it did not exist. */
export async function getTicket(
  sql: Queryable,
  viewer: Principal,
  ticketId: string,
): Promise<TicketView | null> {
  const [row] = await sql.query(TICKET_BY_ID, [ticketId, readsAnyTicket(viewer), viewer.id]);
  return row ? toTicketView(row) : null;
}
