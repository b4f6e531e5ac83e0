import { statement } from '../db/sql.ts';
import type { TicketKind } from '../tickets/ticket.entity.ts';
import { CANCELLED } from '../tickets/tickets.views.queries.ts';

// The reports' SQL: the sales report, one row for each visit date, ticket type, event and visitor category.

/** One row of the sales report: the tickets of one visit date, ticket type, event and visitor category. */
export interface SalesRow {
  date: string;
  ticketType: TicketKind;
  eventId: string | null;
  eventName: string | null;
  category: string;
  /** Every ticket sold, cancelled ones included. */
  sold: number;
  /** Of those, given back since, or of an event that was deleted (and not used). */
  cancelled: number;
  /** Of the cancelled, those whose price went back to the buyer through Stripe. */
  refunded: number;
  checkedIn: number;
  /** What the tickets that were not cancelled cost, in hundredths of the currency. */
  revenue: number;
}

// A ticket is cancelled as its status says (CANCELLED). A ticket of an order that was never paid (held while
// it waited for payment, then expired or given up) was never sold and is not counted. Revenue is summed as an
// exact integer (bigint arrives as text). Read on the primary, never a replica: the report is what the
// tickets say now.
export const SALES = statement<
  Omit<SalesRow, 'revenue'> & { revenue: string },
  [startDate: string, endDate: string]
>(
  'sales_report',
  `select to_char(t.ticket_date, 'YYYY-MM-DD') as date, t.ticket_type as "ticketType", t.event_id as "eventId",
          min(e.name) as "eventName", t.category, count(*)::int as sold,
          (count(*) filter (where ${CANCELLED}))::int as cancelled,
          (count(*) filter (where t.cancelled_at is not null and o.payment_intent is not null))::int as refunded,
          (count(*) filter (where t.checked_in_at is not null))::int as "checkedIn",
          coalesce(sum(t.price) filter (where not ${CANCELLED}), 0)::bigint::text as revenue
   from ticket t left join special_event e on e.id = t.event_id left join ticket_order o on o.id = t.order_id
   where t.ticket_date between $1::date and $2::date and not t.awaiting_payment
   group by t.ticket_date, t.ticket_type, t.event_id, t.category
   order by t.ticket_date, t.ticket_type = 'general' desc, min(e.name), t.event_id, t.category`,
);
