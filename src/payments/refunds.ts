import { type Queryable, statement } from '../db/sql.ts';
import { mailRefund } from '../mail/outbox.ts';

// The refund outbox (the `refund` table), as the payments worker takes and records it: rows are written by
// the transactions that give paid tickets back (src/tickets/cancellation.ts) or find a payment too late.

export interface DueRefund {
  id: string;
  paymentIntent: string;
  amount: number;
  attempts: number;
}

// Refunds due: rows another worker holds are skipped; each taken row's next attempt moves a lease ahead.
const TAKE_DUE_REFUNDS = statement<DueRefund, [batch: number, leaseSeconds: number]>(
  'refund_take_due',
  `update refund r set attempts = r.attempts + 1, next_attempt_at = now() + make_interval(secs => $2::float8)
   where r.id in (
     select id from refund where status = 'pending' and next_attempt_at <= now()
     order by next_attempt_at limit $1::int for update skip locked)
   returning r.id, r.payment_intent as "paymentIntent", r.amount, r.attempts`,
);

// A refund made is told to its buyer, in the same statement: once, as the refund is recorded once.
const RECORD_REFUND = statement<
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

const NEXT_REFUND = statement<{ seconds: number | null }>(
  'refund_next_due',
  `select extract(epoch from min(next_attempt_at) - now())::float8 as seconds from refund where status = 'pending'`,
);

export const takeDueRefunds = (sql: Queryable, batch: number, leaseSeconds: number) =>
  sql.query(TAKE_DUE_REFUNDS, [batch, leaseSeconds]);

export const recordRefund = (
  sql: Queryable,
  id: string,
  outcome:
    | { status: 'succeeded'; stripeRefundId: string }
    | { status: 'failed' | 'pending'; error: string; retryInSeconds?: number },
) =>
  sql.query(RECORD_REFUND, [
    id,
    outcome.status,
    outcome.status === 'succeeded' ? outcome.stripeRefundId : null,
    outcome.status === 'succeeded' ? null : outcome.error.slice(0, 500),
    outcome.status === 'pending' ? (outcome.retryInSeconds ?? 0) : 0,
  ]);

export async function nextRefundInSeconds(sql: Queryable): Promise<number | null> {
  const [next] = await sql.query(NEXT_REFUND, []);
  return next?.seconds ?? null;
}
