import type { Queryable, Sql } from '../db/sql.ts';
import { giveBack, NOTHING_GIVEN_BACK } from '../tickets/cancellation.ts';
import { type GivenBack, HOLD_ORDER_TICKETS } from '../tickets/tickets.cancellation.queries.ts';
import {
  CHECKOUT_LINES,
  HOLD_PENDING_ORDER,
  NEXT_EXPIRY,
  REPRICED_ORDERS,
  STORE_CHECKOUT,
  TAKE_EXPIRED_ORDER,
} from './payments.queries.ts';
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

export async function repricedOrders(sql: Queryable): Promise<string[]> {
  return (await sql.query(REPRICED_ORDERS, [])).map((order) => order.id);
}
