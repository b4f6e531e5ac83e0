import type { ListPage } from '../common/pagination.ts';
import { rfc3339, rfc3339Micros, statement } from '../db/sql.ts';
import type { Canceller } from './ticket.entity.ts';
import { GENERAL_ADMISSION } from './ticket-sales.entity.ts';
import { PURCHASE_MESSAGES } from './tickets.rules.ts';
import type { TicketConfirmation } from './tickets.service.ts';

// The tickets' SQL as their holders, staff and gates read them: a ticket's view (its columns, its status, as
// one JSON value), one ticket, batches of tickets (ticket-loads.ts) and a window of an account's list
// (ticket-connection.ts builds one statement for each direction).

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
export const STATUS = `case when t.checked_in_at is not null then 'used' when t.cancelled_at is not null then 'cancelled'
  when t.awaiting_payment then 'pending' else 'valid' end`;

/** The columns of a TicketView but `message`, for `… from ticket t left join special_event e on e.id = t.event_id`. */
export const TICKET_VIEW_COLUMNS = `t.id as "ticketId", t.ticket_type as "ticketType",
  to_char(t.ticket_date, 'YYYY-MM-DD') as "ticketDate", t.confirmation_code as "confirmationCode",
  t.event_id as "eventId", e.name as "eventName", ${STATUS} as status, ${rfc3339('t.checked_in_at')} as "checkedInAt",
  t.category, t.price, to_char(t.entry_time, 'HH24:MI') as "entryTime", t.cancelled_by as "cancelledBy",
  t.cancellation_reason as "cancellationReason"`;

/** Whether a ticket's status is `cancelled` (STATUS), for counts. */
export const CANCELLED = '(t.cancelled_at is not null)';

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

// Owner, staff or gate ($2) only: anyone else reads nothing, as if the ticket did not exist.
export const TICKET_BY_ID = statement<
  Omit<TicketView, 'message'>,
  [ticketId: string, anyTicket: boolean, viewerId: string]
>(
  'ticket_by_id',
  `select ${TICKET_VIEW_COLUMNS}
   from ticket t left join special_event e on e.id = t.event_id
   where t.id = $1::uuid and ($2::boolean or t.account_id = $3::uuid)`,
  { mayBeStale: true },
);

// Owner, staff or gate ($2) only, as ticket_by_id.
export const TICKETS_BY_ID = statement<
  { id: string; ticket: TicketView },
  [ticketIds: string[], anyTicket: boolean, viewerId: string]
>(
  'tickets_by_id',
  `select t.id, ${TICKET_VIEW_JSON} as ticket
   from ticket t left join special_event e on e.id = t.event_id
   where t.id = any($1::uuid[]) and ($2::boolean or t.account_id = $3::uuid)`,
  { mayBeStale: true },
);

// The tickets of each account of $1 with a date in [$2, $3] (either end null: open), one page ($4, $5) of
// them by ticket date, then purchase time, and how many there are over all pages.
export const TICKETS_OF_ACCOUNTS = statement<
  { accountId: string } & ListPage<TicketView>,
  [accountIds: string[], startDate: string | null, endDate: string | null, limit: number, offset: number]
>(
  'tickets_of_accounts',
  `select a.id as "accountId",
          (select count(*)::int from ticket t
           where t.account_id = a.id
             and ($2::date is null or t.ticket_date >= $2::date)
             and ($3::date is null or t.ticket_date <= $3::date)) as total,
          coalesce((
            select json_agg(page.ticket order by page.ticket_date, page.created_at, page.id)
            from (
              select ${TICKET_VIEW_JSON} as ticket, t.ticket_date, t.created_at, t.id
              from ticket t left join special_event e on e.id = t.event_id
              where t.account_id = a.id
                and ($2::date is null or t.ticket_date >= $2::date)
                and ($3::date is null or t.ticket_date <= $3::date)
              order by t.ticket_date, t.created_at, t.id
              limit $4::int offset $5::bigint
            ) page
          ), '[]') as items
   from unnest($1::uuid[]) as a(id)`,
  { mayBeStale: true },
);

// General admission left on each day of $1 under a daily capacity of $2: the counter purchases keep, or before
// the first sale under the capacity, the general tickets not cancelled, as a purchase would count them.
export const GENERAL_REMAINING = statement<
  { date: string; remaining: number },
  [dates: string[], dailyCapacity: number]
>(
  'general_remaining',
  `select to_char(days.day, 'YYYY-MM-DD') as date,
          greatest($2::int - coalesce(
            (select c.sold from ticket_sales c where c.scope = '${GENERAL_ADMISSION}' and c.date = days.day),
            (select count(*)::int from ticket t
             where t.ticket_type = 'general' and t.ticket_date = days.day and t.cancelled_at is null)), 0) as remaining
   from unnest($1::date[]) as days(day)`,
  { mayBeStale: true },
);

/** A ticket's place in its owner's list: its date, when it was bought (to the microsecond), its ticketId. */
export type TicketKey = readonly [ticketDate: string, createdAt: string, ticketId: string];

const IN_RANGE = `t.account_id = $1::uuid
  and ($2::date is null or t.ticket_date >= $2::date) and ($3::date is null or t.ticket_date <= $3::date)`;

interface TicketWindowRow extends Omit<TicketView, 'message'> {
  total: number;
  keyDate: string;
  keyCreatedAt: string;
}

/** The owner, the range's ends (null: open), the keys the window lies after and before, and its size. */
type TicketWindowParams = [
  accountId: string,
  startDate: string | null,
  endDate: string | null,
  ...after: TicketKey,
  ...before: TicketKey,
  limit: number,
];

// A window past the end is one row with the total and no ticket.
export const ticketWindow = (backwards: boolean) => {
  const order = backwards ? 'desc' : 'asc';
  return statement<TicketWindowRow, TicketWindowParams>(
    `ticket_window_${backwards ? 'backwards' : 'forwards'}`,
    `select n.total, page.* from (select count(*)::int as total from ticket t where ${IN_RANGE}) n
     left join lateral (
       select ${TICKET_VIEW_COLUMNS}, to_char(t.ticket_date, 'YYYY-MM-DD') as "keyDate",
         ${rfc3339Micros('t.created_at')} as "keyCreatedAt"
       from ticket t left join special_event e on e.id = t.event_id
       where ${IN_RANGE}
         and (t.ticket_date, t.created_at, t.id) > ($4::date, $5::timestamptz, $6::uuid)
         and (t.ticket_date, t.created_at, t.id) < ($7::date, $8::timestamptz, $9::uuid)
       order by t.ticket_date ${order}, t.created_at ${order}, t.id ${order}
       limit $10::int
     ) page on true
     order by page."keyDate" ${order}, page."keyCreatedAt" ${order}, page."ticketId" ${order}`,
    { mayBeStale: true },
  );
};
