import type { Principal } from '../accounts/authenticator.ts';
import { conflict, notFound, tooManyRequests } from '../common/errors.ts';
import { type Queryable, type Sql, statement } from '../db/sql.ts';
import { type EmailDelivery, orderDelivery, queueOrderMail } from './outbox.ts';

/** Copies of an order's tickets mail that may be asked for within an hour. */
export const RESENDS_PER_HOUR = 5;

// Owner or staff ($2) only; the lock orders concurrent requests for copies of one order, so the limit holds.
const HOLD_ORDER_FOR_RESEND = statement(
  'mail_hold_order_for_resend',
  `select o.status,
          (select count(*)::int from mail m
           where m.order_id = o.id and m.resent and m.created_at > now() - interval '1 hour') as resent,
          (select ceil(extract(epoch from min(m.created_at) + interval '1 hour' - now()))::int from mail m
           where m.order_id = o.id and m.resent and m.created_at > now() - interval '1 hour') as "freeInSeconds"
   from ticket_order o where o.id = $1::uuid and ($2::boolean or o.account_id = $3::uuid)
   for update of o`,
);

/**
 * Queues a fresh copy of a confirmed order's tickets mail, for its owner or staff (anyone else: not found),
 * at most RESENDS_PER_HOUR an hour per order. Answers how the copy stands (pending).
 */
export function resendTickets(sql: Sql, viewer: Principal, orderId: string): Promise<EmailDelivery> {
  return sql.transaction(async (tx) => {
    const [order] = await tx.query<{ status: string; resent: number; freeInSeconds: number | null }>(
      HOLD_ORDER_FOR_RESEND,
      [orderId, viewer.role === 'staff', viewer.id],
    );
    if (!order) throw notFound('There is no order with that orderId');
    if (order.status !== 'confirmed')
      throw conflict(`The order is ${order.status}: only a confirmed order's tickets are sent`);
    if (order.resent >= RESENDS_PER_HOUR)
      throw tooManyRequests(
        `At most ${RESENDS_PER_HOUR} copies of an order's tickets an hour; try again in ${order.freeInSeconds} seconds`,
        Math.max(1, order.freeInSeconds ?? 3600),
      );
    await queueOrderMail(tx, orderId, true);
    return (await orderDelivery(tx, orderId))!;
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
}

// In the order of $1, each with its day's opening hours (its own, else its weekday's).
const MAIL_TICKETS = statement(
  'mail_worker_tickets',
  `select t.id as "ticketId", t.ticket_type as "ticketType", to_char(t.ticket_date, 'YYYY-MM-DD') as "ticketDate",
          to_char(t.entry_time, 'HH24:MI') as "entryTime", to_char(t.entry_end, 'HH24:MI') as "entryEnd",
          to_char(h.time_open, 'HH24:MI') as "timeOpen", to_char(h.time_close, 'HH24:MI') as "timeClose",
          e.name as "eventName", t.category, t.price, t.confirmation_code as "confirmationCode",
          (t.cancelled_at is not null or e.deleted_at is not null) as cancelled
   from unnest($1::uuid[]) with ordinality as wanted(id, place)
   join ticket t on t.id = wanted.id
   left join special_event e on e.id = t.event_id
   left join lateral (
     select o.time_open, o.time_close from day_hours o where o.date = t.ticket_date
     union all
     select w.time_open, w.time_close from weekly_hours w
     where w.weekday = extract(isodow from t.ticket_date)
       and not exists (select from day_hours o where o.date = t.ticket_date)
   ) h on true
   order by wanted.place`,
);

export const mailTickets = (sql: Queryable, ticketIds: string[]) =>
  sql.query<MailTicket>(MAIL_TICKETS, [ticketIds]);
