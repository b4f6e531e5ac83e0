import type { Principal } from '../accounts/authenticator.ts';
import type { AppDeps } from '../context.ts';
import { checkIdempotencyKey } from './idempotency.ts';
import type { PurchaseOptions } from './tickets.service.ts';

/**
 * What a purchase (a ticket or an order) is checked against now, whether it waits for payment, and whom it
 * tells of each ticket sold.
 */
export function purchaseOptions(
  deps: AppDeps,
  idempotencyKey: string | null,
  buyer: Principal,
): PurchaseOptions {
  const { metrics, config } = deps;
  return {
    ...deps.clock.now(),
    dailyCapacity: deps.config.dailyCapacity,
    entryGraceMinutes: deps.config.entryGraceMinutes,
    idempotencyKey: checkIdempotencyKey(idempotencyKey),
    // Staff sell at the desk, where the visitor pays in person: their orders are confirmed at once.
    holdMinutes:
      config.payments.mode === 'stripe' && buyer.role !== 'staff' ? config.payments.holdMinutes : null,
    sold: (ticket) => {
      metrics?.ticketSold(ticket.ticketType, ticket.category);
      deps.mail?.wake();
    },
  };
}
