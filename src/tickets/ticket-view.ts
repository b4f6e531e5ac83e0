import type { Principal } from '../accounts/authenticator.ts';
import { type Queryable, rfc3339, statement } from '../db/sql.ts';
import type { Canceller } from './ticket.entity.ts';
import { GENERAL_ADMISSION } from './ticket-sales.entity.ts';
import { PURCHASE_MESSAGES } from './tickets.rules.ts';
import type { TicketConfirmation } from './tickets.service.ts';

export const TICKET_STATUSES = ['valid', 'used', 'cancelled', 'pending'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export interface TicketView extends TicketConfirmation {
  /**
   * `used` once checked in; `cancelled` once given back or its event was deleted; `pending` while its order
   * waits for payment; else `valid`.
   */
  status: TicketStatus;
  /** When a gate admitted it (RFC 3339, UTC), or null. */
  checkedInAt: string | null;
  /** A cancelled ticket's canceller: its buyer, or the museum; null otherwise (and for a hold that ran out). */
  cancelledBy: Canceller | null;
  /** Why the museum called it off, when staff said why. */
  cancellationReason: string | null;
}

// A ticket checked in stays `used` when its event is deleted afterwards: the visit happened (and a deletion
// calls off only the tickets not used yet).
const STATUS = `case when t.checked_in_at is not null then 'used' when t.cancelled_at is not null then 'cancelled'
  when t.awaiting_payment then 'pending' else 'valid' end`;

/** Whether a ticket's status is `cancelled` (STATUS), for counts. */
export const CANCELLED = '(t.cancelled_at is not null)';

/** The columns of a TicketView but `message`, for `… from ticket t left join special_event e on e.id = t.event_id`. */
export const TICKET_VIEW_COLUMNS = `t.id as "ticketId", t.ticket_type as "ticketType",
  to_char(t.ticket_date, 'YYYY-MM-DD') as "ticketDate", t.confirmation_code as "confirmationCode",
  t.event_id as "eventId", e.name as "eventName", ${STATUS} as status, ${rfc3339('t.checked_in_at')} as "checkedInAt",
  t.category, t.price, to_char(t.entry_time, 'HH24:MI') as "entryTime", t.cancelled_by as "cancelledBy",
  t.cancellation_reason as "cancellationReason"`;

/** The same as one JSON object (for lists of tickets inside another row), `message` included. */
export const TICKET_VIEW_JSON = `json_build_object('message', case t.ticket_type
    when 'general' then '${PURCHASE_MESSAGES.general}' else '${PURCHASE_MESSAGES.event}' end,
  'ticketId', t.id, 'ticketType', t.ticket_type, 'ticketDate', to_char(t.ticket_date, 'YYYY-MM-DD'),
  'confirmationCode', t.confirmation_code, 'eventId', t.event_id, 'eventName', e.name, 'status', ${STATUS},
  'checkedInAt', ${rfc3339('t.checked_in_at')}, 'category', t.category, 'price', t.price,
  'entryTime', to_char(t.entry_time, 'HH24:MI'), 'cancelledBy', t.cancelled_by,
  'cancellationReason', t.cancellation_reason)`;

/** The ticket_sales scope a ticket's seat was counted in. */
export const SALES_SCOPE = `coalesce(t.event_id::text, '${GENERAL_ADMISSION}')`;

/** A timed ticket's slot counter besides (slotScope in tickets.service.ts), or null. */
export const SLOT_SCOPE = `'${GENERAL_ADMISSION} ' || to_char(t.entry_time, 'HH24:MI')`;

/** A row of TICKET_VIEW_COLUMNS as the API shows it. */
export const toTicketView = (row: Omit<TicketView, 'message'>): TicketView => ({
  message: PURCHASE_MESSAGES[row.ticketType],
  ...row,
});

/** Whether a caller may read any ticket (staff, and a door scanner), rather than only its own. */
export const readsAnyTicket = (viewer: Principal) => viewer.role === 'staff' || viewer.role === 'gate';

// Owner, staff or gate ($2) only: anyone else reads nothing, as if the ticket did not exist.
const TICKET_BY_ID = statement<
  Omit<TicketView, 'message'>,
  [ticketId: string, anyTicket: boolean, viewerId: string]
>(
  'ticket_by_id',
  `select ${TICKET_VIEW_COLUMNS}
   from ticket t left join special_event e on e.id = t.event_id
   where t.id = $1::uuid and ($2::boolean or t.account_id = $3::uuid)`,
  { mayBeStale: true },
);

/** A ticket as its owner, staff or a gate may see it; anyone else gets null, as if it did not exist. */
export async function getTicket(
  sql: Queryable,
  viewer: Principal,
  ticketId: string,
): Promise<TicketView | null> {
  const [row] = await sql.query(TICKET_BY_ID, [ticketId, readsAnyTicket(viewer), viewer.id]);
  return row ? toTicketView(row) : null;
}
