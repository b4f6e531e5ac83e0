// An account's orders as a keyset connection (Account.ordersConnection): the rows after or before a cursor's
// (placing time, orderId), in the order of Account.orders (newest first, then orderId), read with the
// account's total in one statement.
import { z } from 'zod';
import type { CursorKey, Keyed, KeysetPage, KeysetWindow } from '../common/cursors.ts';
import { type Queryable, rfc3339Micros, statement } from '../db/sql.ts';
import { ORDER_COLUMNS, type OrderView } from './orders.service.ts';

/** An order's place in its account's list: when it was placed (to the microsecond), its orderId. */
export type OrderKey = readonly [createdAt: string, orderId: string];

export const orderKeySchema: z.ZodType<OrderKey> = z.tuple([z.iso.datetime({ precision: 6 }), z.guid()]);

/** The list and owner an order cursor belongs to: another account's cursor is refused. */
export const ordersScope = (accountId: string) => `orders/${accountId}`;

// Keys before and after every order in the list's order (newest first): where a window without `after` or
// `before` is bounded.
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const BEFORE_ALL: OrderKey = ['infinity', NIL_UUID];
const AFTER_ALL: OrderKey = ['-infinity', NIL_UUID];

interface OrderWindowRow extends OrderView {
  total: number;
  keyCreatedAt: string;
}

/** The account, the keys the window lies after and before, and its size. */
type OrderWindowParams = [accountId: string, ...after: OrderKey, ...before: OrderKey, limit: number];

// The list runs newest first and by id among equal times: a row comparison cannot mix the two directions, so
// each bound is spelled out. An account's orders are found by ticket_order_account_id_index.
const orderWindow = (backwards: boolean) =>
  statement<OrderWindowRow, OrderWindowParams>(
    `order_window_${backwards ? 'backwards' : 'forwards'}`,
    `select n.total, page.* from (select count(*)::int as total from ticket_order o where o.account_id = $1::uuid) n
     left join lateral (
       select ${ORDER_COLUMNS}, ${rfc3339Micros('o.created_at')} as "keyCreatedAt"
       from ticket_order o
       where o.account_id = $1::uuid
         and (o.created_at < $2::timestamptz or (o.created_at = $2::timestamptz and o.id > $3::uuid))
         and (o.created_at > $4::timestamptz or (o.created_at = $4::timestamptz and o.id < $5::uuid))
       order by ${backwards ? 'o.created_at, o.id desc' : 'o.created_at desc, o.id'}
       limit $6::int
     ) page on true
     order by ${backwards ? 'page."keyCreatedAt", page."orderId" desc' : 'page."keyCreatedAt" desc, page."orderId"'}`,
    { mayBeStale: true },
  );

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
