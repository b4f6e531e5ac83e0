import { rfc3339, statement } from '../db/sql.ts';
import { TICKET_VIEW_COLUMNS, type TicketView } from '../tickets/tickets.views.queries.ts';

// The check-ins' SQL: a ticket read by its confirmation code at the door, and checked in.

/** A ticket as the door reads it: with the end of a timed ticket's slot. */
export type TicketRow = Omit<TicketView, 'message'> & { entryEnd: string | null };

const minuteOf = (column: string) => `(extract(epoch from ${column})::int / 60)`;

// Admission is one conditional update: of any number of concurrent scans of a ticket, on any number of
// instances, the first to lock its row sets checked_in_at; the others wait for it, find the row changed
// and update nothing. The select around it reads the ticket as it was when the statement began, so an
// admitted ticket's time comes from the update. A timed ticket admits from $4 minutes before its slot
// starts until $4 after it ends ($3: the museum's minute of the day now).
export const CHECK_IN = statement<
  TicketRow & { admittedAt: string | null },
  [confirmationCode: string, date: string, minuteOfDay: number, graceMinutes: number]
>(
  'check_in',
  `with admitted as (
     update ticket t set checked_in_at = now()
     where t.confirmation_code = $1 and t.checked_in_at is null and t.cancelled_at is null
       and not t.awaiting_payment and t.ticket_date = $2::date
       and (t.entry_time is null
            or $3::int between ${minuteOf('t.entry_time')} - $4::int and ${minuteOf('t.entry_end')} + $4::int)
     returning t.id, t.checked_in_at)
   select ${TICKET_VIEW_COLUMNS}, to_char(t.entry_end, 'HH24:MI') as "entryEnd",
          ${rfc3339('a.checked_in_at')} as "admittedAt"
   from ticket t left join special_event e on e.id = t.event_id left join admitted a on a.id = t.id
   where t.confirmation_code = $1`,
);

export const TICKET_BY_CODE = statement<TicketRow, [confirmationCode: string]>(
  'ticket_by_code',
  `select ${TICKET_VIEW_COLUMNS}, to_char(t.entry_end, 'HH24:MI') as "entryEnd"
   from ticket t left join special_event e on e.id = t.event_id where t.confirmation_code = $1`,
);
