import type { AppDeps } from '../context.ts';
import { checkIdempotencyKey } from './idempotency.ts';
import type { PurchaseOptions } from './tickets.service.ts';

/** What a purchase (a ticket or an order) is checked against now, and whom it tells of each ticket sold. */
export function purchaseOptions(deps: AppDeps, idempotencyKey: string | null): PurchaseOptions {
  const { metrics } = deps;
  return {
    ...deps.clock.now(),
    dailyCapacity: deps.config.dailyCapacity,
    entryGraceMinutes: deps.config.entryGraceMinutes,
    idempotencyKey: checkIdempotencyKey(idempotencyKey),
    sold: metrics ? (ticket) => metrics.ticketSold(ticket.ticketType, ticket.category) : undefined,
  };
}
