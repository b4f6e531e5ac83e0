import { rfc3339, statement } from '../db/sql.ts';
import { slotSetting } from '../hours/entry-slots.rules.ts';
import { mailRefund } from '../mail/mail.queries.ts';
import { SALES_SCOPE, SLOT_SCOPE } from '../tickets/tickets.views.queries.ts';

// The payments' SQL: Stripe's events recorded, an order held, confirmed or refunded by them, the pending
// orders whose hold ran out, their Checkout Sessions, and the refunds owed and recorded.

/** The order as a payment finds it, its row locked until the transaction ends. */
export interface HeldOrder {
  id: string;
  status: string;
  paymentIntent: string | null;
}

// Stripe's event id takes effect once: its row commits with what the event did.
export const RECORD_EVENT = statement<{ id: string }, [eventId: string, type: string]>(
  'payment_record_event',
  `insert into stripe_event (id, type, received_at) values ($1, $2, now())
   on conflict (id) do nothing returning id`,
);

// The order a Checkout Session pays: by the order id Stripe carries back (client_reference_id), and the
// session, unless the order has not stored its session yet (the service stopped right after making it). A
// session the order replaced (the museum called some of its tickets off) is `superseded`: it pays nothing.
export const HOLD_ORDER = statement<
  HeldOrder & { superseded: boolean },
  [orderId: string, sessionId: string]
>(
  'payment_hold_order',
  `select id, status, payment_intent as "paymentIntent", $2 = any(superseded_sessions) as superseded
   from ticket_order
   where id = $1::uuid and (checkout_session_id = $2 or checkout_session_id is null or $2 = any(superseded_sessions))
   for update`,
);

/** What a payment binds: the order, the amount paid, its PaymentIntent and its Checkout Session. */
export type Paid = [orderId: string, amount: number, paymentIntent: string | null, sessionId: string];

// Its tickets are sold: those its hold's end gave back too (a late payment), not those the museum called off.
export const CONFIRM_ORDER = statement<never, Paid>(
  'payment_confirm_order',
  `with paid as (
     update ticket_order set status = 'confirmed', paid_amount = $2::int, payment_intent = $3,
       checkout_session_id = coalesce(checkout_session_id, $4)
     where id = $1::uuid returning id)
   update ticket set awaiting_payment = false, cancelled_at = null
   where order_id = (select id from paid) and cancelled_by is null`,
);

// A payment through a session the order replaced goes back in full, once (a replay of it, or another event
// of the same payment, finds its refund); the order stays as it is.
export const REFUND_SUPERSEDED_PAYMENT = statement<never, [...Paid, refundId: string]>(
  'payment_refund_superseded',
  `insert into refund (id, order_id, amount, payment_intent, reason, status, attempts, next_attempt_at, created_at)
   select $5::uuid, o.id, $2::int, $3::text, 'late_payment', 'pending', 0, now(), now()
   from ticket_order o
   where o.id = $1::uuid and $4::text = any(o.superseded_sessions) and $2::int > 0 and $3::text is not null
     and not exists (select from refund where payment_intent = $3::text)`,
);

export const REFUND_LATE_PAYMENT = statement<never, [...Paid, refundId: string]>(
  'payment_refund_late',
  `with refunded as (
     update ticket_order set status = 'refunded', paid_amount = $2::int, payment_intent = $3,
       checkout_session_id = coalesce(checkout_session_id, $4)
     where id = $1::uuid returning id)
   insert into refund (id, order_id, amount, payment_intent, reason, status, attempts, next_attempt_at, created_at)
   select $5::uuid, id, $2::int, $3, 'late_payment', 'pending', 0, now(), now() from refunded where $2::int > 0`,
);

interface ExpiredSeat {
  date: string;
  scope: string;
  slot: string | null;
  eventCapacity: number | null;
  gone: boolean;
  slotCapacity: number | null;
}

// An expired order's tickets, their seats to be taken again (not those the museum called off): each with the
// capacity of its counter(s).
export const EXPIRED_SEATS = statement<ExpiredSeat, [orderId: string]>(
  'payment_expired_seats',
  `select to_char(t.ticket_date, 'YYYY-MM-DD') as date, ${SALES_SCOPE} as scope, ${SLOT_SCOPE} as slot,
          e.capacity as "eventCapacity",
          (e.id is not null and (e.deleted_at is not null or not exists (
             select from special_event_date d where d.event_id = e.id and d.date = t.ticket_date and d.listed))) as gone,
          ${slotSetting('capacity')} as "slotCapacity"
   from ticket t
   left join special_event e on e.id = t.event_id
   left join day_entry_slots d on d.date = t.ticket_date
   cross join entry_slots m
   where t.order_id = $1::uuid and t.cancelled_by is null
   order by t.id`,
);

// Takes $3 seats of counter ($1, $2) under capacity $4. A missing counter starts from the tickets of its
// scope sold and not cancelled, as a purchase's does (src/tickets/tickets.queries.ts).
export const TAKE_SEATS = statement<
  { sold: number },
  [scope: string, date: string, count: number, capacity: number]
>(
  'payment_take_seats',
  `insert into ticket_sales as s (scope, date, sold)
   select $1, $2::date, counted.sold + $3::int from (
     select case when exists (select from ticket_sales where scope = $1 and date = $2::date) then 0
       else (select count(*)::int from ticket t
             where t.ticket_date = $2::date and t.cancelled_at is null
               and $1 in (${SALES_SCOPE}, ${SLOT_SCOPE})) end as sold) counted
   where counted.sold + $3::int <= $4::int
   on conflict (scope, date) do update set sold = s.sold + $3::int where s.sold + $3::int <= $4::int
   returning sold`,
);

// Stripe retries an event for 3 days: an id older than 30 days will not come again.
export const PURGE_STRIPE_EVENTS = statement(
  'stripe_event_purge',
  "delete from stripe_event where received_at < now() - interval '30 days'",
);

// One pending order whose hold has ended, locked; one another instance is expiring is skipped.
export const TAKE_EXPIRED_ORDER = statement<{ id: string }>(
  'payment_take_expired_order',
  `select id from ticket_order where status = 'pending' and expires_at <= now()
   order by expires_at limit 1 for update skip locked`,
);

export const NEXT_EXPIRY = statement<{ seconds: number | null }>(
  'payment_next_expiry',
  `select extract(epoch from min(expires_at) - now())::float8 as seconds
   from ticket_order where status = 'pending'`,
);

interface CheckoutLineRow {
  ticketType: string;
  date: string;
  eventName: string | null;
  category: string | null;
  entryTime: string | null;
  unitAmount: number;
  quantity: number;
}

// What a Checkout Session sells: the order's tickets still held (the museum may have called some off), one line
// per kind of ticket at one price.
export const CHECKOUT_LINES = statement<CheckoutLineRow, [orderId: string]>(
  'payment_checkout_lines',
  `select t.ticket_type as "ticketType", to_char(t.ticket_date, 'YYYY-MM-DD') as date, e.name as "eventName",
          c.name as category, to_char(t.entry_time, 'HH24:MI') as "entryTime", t.price as "unitAmount",
          count(*)::int as quantity, min(t.order_position) as position
   from ticket t
   left join special_event e on e.id = t.event_id
   left join price_category c on c.category = t.category
   where t.order_id = $1::uuid and t.cancelled_at is null
   group by t.ticket_type, t.ticket_date, e.name, c.name, t.category, t.entry_time, t.price
   order by position`,
);

// The session is stored once, and only on an order still waiting for it.
export const STORE_CHECKOUT = statement<{ id: string }, [orderId: string, sessionId: string, url: string]>(
  'payment_store_checkout',
  `update ticket_order set checkout_session_id = $2, checkout_url = $3
   where id = $1::uuid and status = 'pending' and checkout_session_id is null
   returning id`,
);

export const HOLD_PENDING_ORDER = statement<{ id: string; repriced: boolean }, [orderId: string]>(
  'payment_hold_pending_order',
  `select id, cardinality(superseded_sessions) > 0 as repriced from ticket_order
   where id = $1::uuid and status = 'pending' for update`,
);

// Pending orders whose Checkout Session was replaced (the museum called some of their tickets off) and that
// have no new one yet: the payments worker offers each one for what is left.
export const REPRICED_ORDERS = statement<{ id: string }>(
  'payment_repriced_orders',
  `select id from ticket_order
   where status = 'pending' and checkout_session_id is null and cardinality(superseded_sessions) > 0
   order by expires_at limit 10`,
);

interface OrderToOffer {
  status: string;
  checkoutUrl: string | null;
  expiresAt: string;
}

export const ORDER_TO_OFFER = statement<OrderToOffer, [orderId: string]>(
  'payment_order_to_offer',
  `select status, checkout_url as "checkoutUrl", ${rfc3339('expires_at')} as "expiresAt"
   from ticket_order where id = $1::uuid`,
);

// The refund outbox (the `refund` table), as the payments worker takes and records it: rows are written by
// the transactions that give paid tickets back (src/tickets/cancellation.ts) or find a payment too late.

export interface DueRefund {
  id: string;
  paymentIntent: string;
  amount: number;
  attempts: number;
}

// Refunds due: rows another worker holds are skipped; each taken row's next attempt moves a lease ahead.
export const TAKE_DUE_REFUNDS = statement<DueRefund, [batch: number, leaseSeconds: number]>(
  'refund_take_due',
  `update refund r set attempts = r.attempts + 1, next_attempt_at = now() + make_interval(secs => $2::float8)
   where r.id in (
     select id from refund where status = 'pending' and next_attempt_at <= now()
     order by next_attempt_at limit $1::int for update skip locked)
   returning r.id, r.payment_intent as "paymentIntent", r.amount, r.attempts`,
);

// A refund made is told to its buyer, in the same statement: once, as the refund is recorded once.
export const RECORD_REFUND = statement<
  { recorded: number },
  [
    id: string,
    status: 'succeeded' | 'failed' | 'pending',
    stripeRefundId: string | null,
    error: string | null,
    retryInSeconds: number,
  ]
>(
  'refund_record',
  `with recorded as (
     update refund set status = $2, stripe_refund_id = coalesce($3, stripe_refund_id), last_error = $4,
       refunded_at = case when $2 = 'succeeded' then now() end,
       next_attempt_at = case when $2 = 'pending' then now() + make_interval(secs => $5::float8) end
     where id = $1::uuid and status = 'pending'
     returning order_id, amount, status),
   refunded as (select order_id, amount from recorded where status = 'succeeded'),
   ${mailRefund('refunded')}
   select count(*)::int as recorded from recorded`,
);

export const NEXT_REFUND = statement<{ seconds: number | null }>(
  'refund_next_due',
  `select extract(epoch from min(next_attempt_at) - now())::float8 as seconds from refund where status = 'pending'`,
);
