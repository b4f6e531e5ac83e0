import { type Queryable, type Sql, statement } from '../db/sql.ts';
import { giveBack, NOTHING_GIVEN_BACK } from '../tickets/cancellation.ts';
import { type GivenBack, HOLD_ORDER_TICKETS } from '../tickets/tickets.cancellation.queries.ts';
import type { CheckoutLine } from './stripe-gateway.ts';

// Holds: a pending order's seats, its Checkout Session, and the end of the hold (src/payments/payments.ts
// makes the session and runs the expiry).

/**
 * Gives back every ticket of a pending order whose row is locked; it becomes `expired`, and its buyer is
 * told unless `mail` is false.
 */
export async function expireHeld(tx: Queryable, orderId: string, mail = true): Promise<GivenBack> {
  const tickets = await tx.query(HOLD_ORDER_TICKETS, [orderId, true, null]);
  return giveBack(
    tx,
    tickets.filter((ticket) => !ticket.cancelled),
    { by: null, pendingStatus: 'expired', mail: mail ? 'expired' : null },
  );
}

// One pending order whose hold has ended, locked; one another instance is expiring is skipped.
const TAKE_EXPIRED_ORDER = statement<{ id: string }>(
  'payment_take_expired_order',
  `select id from ticket_order where status = 'pending' and expires_at <= now()
   order by expires_at limit 1 for update skip locked`,
);

const NEXT_EXPIRY = statement<{ seconds: number | null }>(
  'payment_next_expiry',
  `select extract(epoch from min(expires_at) - now())::float8 as seconds
   from ticket_order where status = 'pending'`,
);

/**
 * Expires the pending orders whose hold has ended, one transaction each, exactly once across instances:
 * their seats come back. Answers what each gave back (its Checkout Session is to be expired at Stripe),
 * and the seconds until the next hold ends (null: none pending).
 */
export async function expireDueOrders(
  sql: Sql,
): Promise<{ expired: GivenBack[]; nextInSeconds: number | null }> {
  const expired: GivenBack[] = [];
  for (;;) {
    const done = await sql.transaction(async (tx) => {
      const [order] = await tx.query(TAKE_EXPIRED_ORDER, []);
      return order ? expireHeld(tx, order.id) : null;
    });
    if (!done) break;
    expired.push(done);
  }
  const [next] = await sql.query(NEXT_EXPIRY, []);
  return { expired, nextInSeconds: next?.seconds ?? null };
}

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
const CHECKOUT_LINES = statement<CheckoutLineRow, [orderId: string]>(
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

/** The order's lines as Checkout shows them: what, for whom, when, and at what price. */
export async function checkoutLines(sql: Queryable, orderId: string): Promise<CheckoutLine[]> {
  const rows = await sql.query(CHECKOUT_LINES, [orderId]);
  return rows.map((row) => ({
    name: [
      row.eventName ?? 'General admission',
      row.date,
      row.entryTime ? `entry ${row.entryTime}` : null,
      row.category,
    ]
      .filter(Boolean)
      .join(', '),
    unitAmount: row.unitAmount,
    quantity: row.quantity,
  }));
}

// The session is stored once, and only on an order still waiting for it.
const STORE_CHECKOUT = statement<{ id: string }, [orderId: string, sessionId: string, url: string]>(
  'payment_store_checkout',
  `update ticket_order set checkout_session_id = $2, checkout_url = $3
   where id = $1::uuid and status = 'pending' and checkout_session_id is null
   returning id`,
);

export async function storeCheckout(
  sql: Queryable,
  orderId: string,
  session: { sessionId: string; url: string },
): Promise<boolean> {
  const [stored] = await sql.query(STORE_CHECKOUT, [orderId, session.sessionId, session.url]);
  return stored !== undefined;
}

/**
 * An order that could not be offered for payment gives its seats back at once: a new order's buyer got the
 * 503; a repriced order's buyer (the museum called some of its tickets off) is mailed that it expired.
 */
export async function abandonOrder(sql: Sql, orderId: string): Promise<GivenBack> {
  return sql.transaction(async (tx) => {
    const [order] = await tx.query(HOLD_PENDING_ORDER, [orderId]);
    return order ? expireHeld(tx, order.id, order.repriced) : NOTHING_GIVEN_BACK;
  });
}

const HOLD_PENDING_ORDER = statement<{ id: string; repriced: boolean }, [orderId: string]>(
  'payment_hold_pending_order',
  `select id, cardinality(superseded_sessions) > 0 as repriced from ticket_order
   where id = $1::uuid and status = 'pending' for update`,
);

// Pending orders whose Checkout Session was replaced (the museum called some of their tickets off) and that
// have no new one yet: the payments worker offers each one for what is left.
const REPRICED_ORDERS = statement<{ id: string }>(
  'payment_repriced_orders',
  `select id from ticket_order
   where status = 'pending' and checkout_session_id is null and cardinality(superseded_sessions) > 0
   order by expires_at limit 10`,
);

export async function repricedOrders(sql: Queryable): Promise<string[]> {
  return (await sql.query(REPRICED_ORDERS, [])).map((order) => order.id);
}
