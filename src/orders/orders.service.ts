import { randomUUID } from 'node:crypto';
import type { Principal } from '../accounts/authenticator.ts';
import { DomainError, type FieldIssue, invalid } from '../common/errors.ts';
import { offsetOf, type Page } from '../common/pagination.ts';
import type { Queryable, Sql } from '../db/sql.ts';
import { queueOrderMail } from '../mail/outbox.ts';
import { bySalesCounter } from '../tickets/cancellation.ts';
import { claimOrReplay, requestHash, storeAnswer } from '../tickets/idempotency.ts';
import { GENERAL_ADMISSION } from '../tickets/ticket-sales.entity.ts';
import { isCodeCollision, type PurchaseOptions, sellTicket, slotScope } from '../tickets/tickets.service.ts';
import type { TicketView } from '../tickets/tickets.views.queries.ts';
import {
  AWAIT_PAYMENT,
  NEW_ORDER,
  ORDER_BY_ID,
  ORDERS_OF_ACCOUNT,
  type OrderView,
} from './orders.queries.ts';
import type { OrderLine, PlaceOrderInput } from './orders.rules.ts';

const CODE_ATTEMPTS = 5;

/** A ticket to sell: its line, its place among the order's tickets, and the counters it takes. */
interface Seat {
  line: number;
  position: number;
  scope: string;
  date: string;
  /** A timed ticket's slot counter, taken right after the day's. */
  slot: string;
}

/** The request as its Idempotency-Key remembers it: the same order however its fields are ordered. */
const orderHash = (input: PlaceOrderInput) =>
  requestHash({
    operation: 'placeOrder',
    email: input.email,
    // A line of the reference's fields hashes as it did before categories and entry times.
    lines: input.lines.map((l) => [
      l.ticketType,
      l.ticketDate,
      l.eventId ?? null,
      l.quantity,
      ...(l.category || l.entryTime ? [l.category ?? null, l.entryTime ?? null] : []),
    ]),
  });

/** An error of a line's purchase, as the order reports it: naming the line (`lines[1]`). */
export function locatedAt(line: number, error: unknown): unknown {
  if (!(error instanceof DomainError)) return error;
  const at = `lines[${line}]`;
  if (error.kind === 'validation')
    return invalid(error.issues.map((issue) => ({ ...issue, path: `${at}.${issue.path}` })));
  const named = error.issues[0]?.path;
  const field = named ? `${at}.${named}` : error.kind === 'notFound' ? `${at}.eventId` : at;
  const issues: FieldIssue[] = [{ path: field, message: error.message }];
  return new DomainError(error.kind, `${field}: ${error.message}`, issues);
}

/**
 * Places an order: every ticket of every line is checked (open day, event date, category, entry slot, not in
 * the past) and takes its seat in one transaction, so the order is sold whole or not at all; a line that is
 * sold out makes it a conflict naming the line (its entry time, for a full slot). Seats are taken in the order
 * of their counters, as cancelling an order frees them, so concurrent orders wait for each other rather than
 * deadlock. With an idempotency key, the first answer for (buyer, key) is replayed instead, as for one ticket.
 * With a hold (a visitor's order when payments go through Stripe), the order is `pending`: its seats are
 * taken, its tickets admit no one until it is paid, and it gives them back when the hold ends.
 */
export async function placeOrder(
  sql: Sql,
  buyer: Principal,
  input: PlaceOrderInput,
  options: PurchaseOptions,
  locate: (line: number, error: unknown) => unknown = locatedAt,
): Promise<OrderView> {
  const { today, idempotencyKey, holdMinutes } = options;
  const past = input.lines.flatMap((line, i) =>
    line.ticketDate < today
      ? [{ path: `lines[${i}].ticketDate`, message: `must be today (${today}) or later` }]
      : [],
  );
  if (past.length > 0) throw invalid(past);

  const seats: Seat[] = input.lines.flatMap((line, i) =>
    Array.from({ length: line.quantity }, () => ({
      line: i,
      position: 0,
      scope: line.eventId ?? GENERAL_ADMISSION,
      date: line.ticketDate,
      slot: line.entryTime ? slotScope(line.entryTime) : '',
    })),
  );
  seats.forEach((seat, position) => {
    seat.position = position;
  });
  // Every counter a seat takes comes after those of the seats before it, in the one order of counters.
  const lockOrder = [...seats].sort(
    (a, b) =>
      bySalesCounter(a, b) || (a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0) || a.position - b.position,
  );

  const sell = async (tx: Queryable): Promise<OrderView> => {
    const orderId = randomUUID();
    const [order] = await tx.query(NEW_ORDER, [orderId, buyer.id, input.email, holdMinutes]);
    const tickets: TicketView[] = new Array(seats.length);
    for (const seat of lockOrder) {
      const line: OrderLine = input.lines[seat.line]!;
      const purchase = { ...line, email: input.email };
      try {
        const confirmation = await sellTicket(tx, buyer, purchase, options, {
          orderId,
          position: seat.position,
        });
        const status = holdMinutes === null ? 'valid' : 'pending';
        tickets[seat.position] = {
          ...confirmation,
          status,
          checkedInAt: null,
          cancelledBy: null,
          cancellationReason: null,
        };
      } catch (error) {
        throw locate(seat.line, error);
      }
    }
    // Confirmed at once: its tickets mail is owed with it. A pending order's comes with its payment.
    if (holdMinutes === null) await queueOrderMail(tx, orderId);
    else await tx.query(AWAIT_PAYMENT, [orderId]);
    const { createdAt, status, expiresAt } = order!;
    return {
      orderId,
      email: input.email,
      createdAt,
      status,
      expiresAt,
      checkoutUrl: null,
      refundedAmount: 0,
      tickets,
    };
  };

  // Confirmation codes are random; on the rare collision the whole order is tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await sql.transaction(async (tx) => {
        if (!idempotencyKey) return { order: await sell(tx), replayed: false };
        const stored = await claimOrReplay<OrderView>(tx, buyer.id, idempotencyKey, orderHash(input));
        if (stored) return { order: stored.replay, replayed: true };
        const order = await sell(tx);
        await storeAnswer(tx, buyer.id, idempotencyKey, order);
        return { order, replayed: false };
      });
      if (!answer.replayed) for (const ticket of answer.order.tickets) options.sold?.(ticket);
      return answer.order;
    } catch (error) {
      if (!isCodeCollision(error) || attempt >= CODE_ATTEMPTS) throw error;
    }
  }
}

/** An order as its owner, or staff, may see it; anyone else gets null, as if it did not exist. */
export async function getOrder(
  sql: Queryable,
  viewer: Principal,
  orderId: string,
): Promise<OrderView | null> {
  const [order] = await sql.query(ORDER_BY_ID, [orderId, viewer.role === 'staff', viewer.id]);
  return order ?? null;
}

/** The orders an account placed, newest first. */
export function listOrders(sql: Queryable, owner: Principal, page: Page): Promise<OrderView[]> {
  return sql.query(ORDERS_OF_ACCOUNT, [owner.id, page.limit, offsetOf(page)]);
}
