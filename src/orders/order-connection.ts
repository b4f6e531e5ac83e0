// An account's orders as a keyset connection (Account.ordersConnection): the rows after or before a cursor's
// (placing time, orderId), in the order of Account.orders (newest first, then orderId), read with the
// account's total in one statement.
import { z } from 'zod';
import type { CursorKey, Keyed, KeysetPage, KeysetWindow } from '../common/cursors.ts';
import type { Queryable } from '../db/sql.ts';
import { type OrderKey, type OrderView, orderWindow } from './orders.queries.ts';

export const orderKeySchema: z.ZodType<OrderKey> = z.tuple([z.iso.datetime({ precision: 6 }), z.guid()]);

/** The list and owner an order cursor belongs to: another account's cursor is refused. */
export const ordersScope = (accountId: string) => `orders/${accountId}`;

// Keys before and after every order in the list's order (newest first): where a window without `after` or
// `before` is bounded.
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const BEFORE_ALL: OrderKey = ['infinity', NIL_UUID];
const AFTER_ALL: OrderKey = ['-infinity', NIL_UUID];

const FORWARDS = orderWindow(false);
const BACKWARDS = orderWindow(true);

/** The orders of an account in `window`, in the window's reading order, and how many it placed. */
export async function readOrderWindow(
  sql: Queryable,
  accountId: string,
  window: KeysetWindow<OrderKey>,
): Promise<KeysetPage<OrderView>> {
  const rows = await sql.query(window.backwards ? BACKWARDS : FORWARDS, [
    accountId,
    ...(window.after ?? BEFORE_ALL),
    ...(window.before ?? AFTER_ALL),
    window.limit,
  ]);
  const keyed: Keyed<OrderView>[] = [];
  for (const { total: _total, keyCreatedAt, ...order } of rows) {
    if (order.orderId === null) continue;
    const key: CursorKey = [keyCreatedAt, order.orderId];
    keyed.push({ node: order, key });
  }
  return { rows: keyed, total: rows[0]?.total ?? 0 };
}
