// What the graph reads of orders by id, batched per request (src/common/batch.ts, by dataloader).
import type { Principal } from '../accounts/authenticator.ts';
import { loadBatched } from '../common/batch.ts';
import type { Queryable } from '../db/sql.ts';
import { ORDERS_BY_ID, type OrderView } from './orders.queries.ts';

/** An order as getOrder shows it (null for anyone but its owner or staff), read in batches. */
export async function loadOrder(
  sql: Queryable,
  shared: Map<string, unknown>,
  viewer: Principal,
  orderId: string,
): Promise<OrderView | null> {
  const order = await loadBatched(shared, 'orders.byId', orderId, async (ids) => {
    const rows = await sql.query(ORDERS_BY_ID, [ids, viewer.role === 'staff', viewer.id]);
    return new Map(rows.map((row) => [row.orderId, row]));
  });
  return order ?? null;
}
