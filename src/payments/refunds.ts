import type { Queryable } from '../db/sql.ts';
import { NEXT_REFUND, RECORD_REFUND, TAKE_DUE_REFUNDS } from './payments.queries.ts';

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
