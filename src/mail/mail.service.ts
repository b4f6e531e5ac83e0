import type { Principal } from '../accounts/authenticator.ts';
import { conflict, notFound, tooManyRequests } from '../common/errors.ts';
import { type Queryable, rfc3339, type Sql, statement } from '../db/sql.ts';
import {
  type EmailDelivery,
  orderDelivery,
  queueLoneTicketCopy,
  queueOrderMail,
  ticketDelivery,
} from './outbox.ts';

/** Copies of an order's tickets mail that may be asked for within an hour. */
export const RESENDS_PER_HOUR = 5;

/** What decides whether a copy may be sent: the buyer's data erased, the copies of the last hour. */
interface ResendWindow {
  erased: boolean;
  resent: number;
  freeInSeconds: number | null;
}

interface OrderForResend extends ResendWindow {
  status: string;
}

// Owner or staff ($2) only; the lock orders concurrent requests for copies of one order, so the limit holds.
const HOLD_ORDER_FOR_RESEND = statement<
  OrderForResend,
  [orderId: string, anyOrder: boolean, accountId: string]
>(
  'mail_hold_order_for_resend',
  `select o.status, o.email is null as erased,
          (select count(*)::int from mail m
           where m.order_id = o.id and m.resent and m.created_at > now() - interval '1 hour') as resent,
          (select ceil(extract(epoch from min(m.created_at) + interval '1 hour' - now()))::int from mail m
           where m.order_id = o.id and m.resent and m.created_at > now() - interval '1 hour') as "freeInSeconds"
   from ticket_order o where o.id = $1::uuid and ($2::boolean or o.account_id = $3::uuid)
   for update of o`,
);

interface TicketForResend extends ResendWindow {
  orderId: string | null;
  cancelled: boolean;
  awaitingPayment: boolean;
}

// A ticket of the viewer's ($2: staff, anyone's), locked as its order is above, with the copies of its own
// mail (a ticket sold on its own) asked for in the last hour.
const HOLD_TICKET_FOR_RESEND = statement<
  TicketForResend,
  [ticketId: string, anyTicket: boolean, accountId: string]
>(
  'mail_hold_ticket_for_resend',
  `select t.order_id as "orderId", t.cancelled_at is not null as cancelled, t.awaiting_payment as "awaitingPayment",
          t.email is null as erased,
          (select count(*)::int from mail m where m.order_id is null and m.ticket_ids[1] = t.id and m.resent
             and m.created_at > now() - interval '1 hour') as resent,
          (select ceil(extract(epoch from min(m.created_at) + interval '1 hour' - now()))::int from mail m
           where m.order_id is null and m.ticket_ids[1] = t.id and m.resent
             and m.created_at > now() - interval '1 hour') as "freeInSeconds"
   from ticket t where t.id = $1::uuid and ($2::boolean or t.account_id = $3::uuid)
   for update of t`,
);

const ERASED = "The buyer's address was erased: nothing more is mailed";

const tooManyCopies = (freeInSeconds: number | null) =>
  tooManyRequests(
    `At most ${RESENDS_PER_HOUR} copies of a mail of tickets an hour; try again in ${freeInSeconds} seconds`,
    Math.max(1, freeInSeconds ?? 3600),
  );

async function resendOrderMail(tx: Queryable, viewer: Principal, orderId: string): Promise<EmailDelivery> {
  const [order] = await tx.query(HOLD_ORDER_FOR_RESEND, [orderId, viewer.role === 'staff', viewer.id]);
  if (!order) throw notFound('There is no order with that orderId');
  if (order.status !== 'confirmed')
    throw conflict(`The order is ${order.status}: only a confirmed order's tickets are sent`);
  if (order.erased) throw conflict(ERASED);
  if (order.resent >= RESENDS_PER_HOUR) throw tooManyCopies(order.freeInSeconds);
  await queueOrderMail(tx, orderId, true);
  return (await orderDelivery(tx, orderId))!;
}

/**
 * Queues a fresh copy of a confirmed order's tickets mail, for its owner or staff (anyone else: not found),
 * at most RESENDS_PER_HOUR an hour per order. Answers how the copy stands (pending).
 */
export function resendTickets(sql: Sql, viewer: Principal, orderId: string): Promise<EmailDelivery> {
  return sql.transaction((tx) => resendOrderMail(tx, viewer, orderId));
}

/**
 * The same for a ticket: a copy of its order's mail, or of its own for a ticket sold on its own (at most
 * RESENDS_PER_HOUR an hour); a cancelled ticket is not sent (conflict).
 */
export function resendTicket(sql: Sql, viewer: Principal, ticketId: string): Promise<EmailDelivery> {
  return sql.transaction(async (tx) => {
    const [ticket] = await tx.query(HOLD_TICKET_FOR_RESEND, [ticketId, viewer.role === 'staff', viewer.id]);
    if (!ticket) throw notFound('There is no ticket with that ticketId');
    if (ticket.orderId) return resendOrderMail(tx, viewer, ticket.orderId);
    if (ticket.cancelled) throw conflict('The ticket is cancelled: only a valid ticket is sent');
    if (ticket.erased) throw conflict(ERASED);
    if (ticket.resent >= RESENDS_PER_HOUR) throw tooManyCopies(ticket.freeInSeconds);
    await queueLoneTicketCopy(tx, ticketId);
    return (await ticketDelivery(tx, ticketId))!;
  });
}

/** What a mail tells of each ticket: as it is when the mail is sent. */
export interface MailTicket {
  ticketId: string;
  ticketType: 'general' | 'event';
  ticketDate: string;
  /** A timed ticket's entry slot ('HH:MM'), else null. */
  entryTime: string | null;
  entryEnd: string | null;
  /** The museum's hours that day ('HH:MM'); null when closed. */
  timeOpen: string | null;
  timeClose: string | null;
  eventName: string | null;
  category: string;
  price: number;
  confirmationCode: string;
  cancelled: boolean;
  /** Called off by the museum (rather than given back by its buyer), and why, when staff said. */
  calledOff: boolean;
  cancellationReason: string | null;
  /** Its order was paid through Stripe: a ticket given back is refunded. */
  paid: boolean;
  /** It was held for an order that was never paid (it may have been given back meanwhile). */
  awaitingPayment: boolean;
  /** Its order still waits for payment (and holds its other tickets), until `holdEndsAt` (RFC 3339). */
  orderPending: boolean;
  holdEndsAt: string | null;
}

// In the order of $1, each with its day's opening hours (its own, else its weekday's).
const MAIL_TICKETS = statement<MailTicket, [ticketIds: string[]]>(
  'mail_worker_tickets',
  `select t.id as "ticketId", t.ticket_type as "ticketType", to_char(t.ticket_date, 'YYYY-MM-DD') as "ticketDate",
          to_char(t.entry_time, 'HH24:MI') as "entryTime", to_char(t.entry_end, 'HH24:MI') as "entryEnd",
          to_char(h.time_open, 'HH24:MI') as "timeOpen", to_char(h.time_close, 'HH24:MI') as "timeClose",
          e.name as "eventName", t.category, t.price, t.confirmation_code as "confirmationCode",
          t.cancelled_at is not null as cancelled, t.cancelled_by is not distinct from 'museum' as "calledOff",
          t.cancellation_reason as "cancellationReason", o.payment_intent is not null as paid,
          t.awaiting_payment as "awaitingPayment",
          o.status is not distinct from 'pending' as "orderPending", ${rfc3339('o.expires_at')} as "holdEndsAt"
   from unnest($1::uuid[]) with ordinality as wanted(id, place)
   join ticket t on t.id = wanted.id
   left join special_event e on e.id = t.event_id
   left join ticket_order o on o.id = t.order_id
   left join lateral (
     select o.time_open, o.time_close from day_hours o where o.date = t.ticket_date
     union all
     select w.time_open, w.time_close from weekly_hours w
     where w.weekday = extract(isodow from t.ticket_date)
       and not exists (select from day_hours o where o.date = t.ticket_date)
   ) h on true
   order by wanted.place`,
);

export const mailTickets = (sql: Queryable, ticketIds: string[]) => sql.query(MAIL_TICKETS, [ticketIds]);
