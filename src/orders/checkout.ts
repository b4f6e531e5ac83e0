import type { Principal } from '../accounts/authenticator.ts';
import type { AppDeps } from '../context.ts';
import type { OrderView } from './orders.queries.ts';
import { getOrder } from './orders.service.ts';

/**
 * A pending order as its buyer sees it once it is offered for payment: with its Checkout Session's URL
 * (made now, or found, for a replayed request). Any other order is as it is.
 */
export async function withCheckout(deps: AppDeps, buyer: Principal, order: OrderView): Promise<OrderView> {
  if (order.status !== 'pending' || !deps.payments) return order;
  await deps.payments.offer(order.orderId);
  return (await getOrder(deps.db.sql, buyer, order.orderId)) ?? order;
}
