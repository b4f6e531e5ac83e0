import { rfc3339, rfc3339Micros, statement } from '../db/sql.ts';
import type { OrderStatus } from '../tickets/order.entity.ts';
import { TICKET_VIEW_JSON, type TicketView } from '../tickets/tickets.views.queries.ts';

// The orders' SQL: an order placed and read, alone, in a page of its account's or in a window of its account's
// list (order-connection.ts builds one statement for each direction).

export interface OrderView {
  orderId: string;
  /** Null once the buyer's address was erased (src/privacy/). */
  email: string | null;
  /** RFC 3339, UTC. */
  createdAt: string;
  /** Absent in answers kept for Idempotency-Key replays before orders had a status: they were confirmed. */
  status?: OrderStatus;
  /** A pending order's seats are given back at this time unless it is paid (RFC 3339, UTC). */
  expiresAt?: string | null;
  /** Where its buyer pays (Stripe Checkout), while it waits for payment. */
  checkoutUrl?: string | null;
  /** Hundredths of the currency given back (or on their way back) to the buyer. */
  refundedAmount?: number;
  /** In the order of the lines, each line's tickets together. */
  tickets: TicketView[];
}

interface NewOrderRow {
  createdAt: string;
  status: OrderStatus;
  expiresAt: string | null;
}

// $4: minutes the order holds its seats while waiting for payment; null: it is confirmed at once.
export const NEW_ORDER = statement<
  NewOrderRow,
  [orderId: string, accountId: string, email: string, holdMinutes: number | null]
>(
  'new_order',
  `insert into ticket_order (id, account_id, email, created_at, status, expires_at)
   values ($1::uuid, $2::uuid, $3, now(), case when $4::int is null then 'confirmed' else 'pending' end,
           now() + make_interval(mins => $4::int))
   returning ${rfc3339('created_at')} as "createdAt", status, ${rfc3339('expires_at')} as "expiresAt"`,
);

export const AWAIT_PAYMENT = statement<never, [orderId: string]>(
  'order_await_payment',
  'update ticket set awaiting_payment = true where order_id = $1::uuid',
);

export const ORDER_COLUMNS = `o.id as "orderId", o.email, ${rfc3339('o.created_at')} as "createdAt", o.status,
  ${rfc3339('o.expires_at')} as "expiresAt", o.checkout_url as "checkoutUrl",
  (select coalesce(sum(r.amount), 0)::int from refund r where r.order_id = o.id) as "refundedAmount",
  (select json_agg(${TICKET_VIEW_JSON} order by t.order_position)
   from ticket t left join special_event e on e.id = t.event_id where t.order_id = o.id) as tickets`;

// Owner or staff ($2) only: anyone else reads nothing, as if the order did not exist.
export const ORDER_BY_ID = statement<OrderView, [orderId: string, staff: boolean, viewerId: string]>(
  'order_by_id',
  `select ${ORDER_COLUMNS} from ticket_order o where o.id = $1::uuid and ($2::boolean or o.account_id = $3::uuid)`,
  { mayBeStale: true },
);

// ORDER_BY_ID for many orders at once (the graph's batched reads, src/orders/order-loads.ts).
export const ORDERS_BY_ID = statement<OrderView, [orderIds: string[], staff: boolean, viewerId: string]>(
  'orders_by_id',
  `select ${ORDER_COLUMNS} from ticket_order o
   where o.id = any($1::uuid[]) and ($2::boolean or o.account_id = $3::uuid)`,
  { mayBeStale: true },
);

export const ORDERS_OF_ACCOUNT = statement<OrderView, [accountId: string, limit: number, offset: number]>(
  'orders_of_account',
  `select ${ORDER_COLUMNS} from ticket_order o where o.account_id = $1::uuid
   order by o.created_at desc, o.id limit $2::int offset $3::bigint`,
  { mayBeStale: true },
);

/** An order's place in its account's list: when it was placed (to the microsecond), its orderId. */
export type OrderKey = readonly [createdAt: string, orderId: string];

interface OrderWindowRow extends OrderView {
  total: number;
  keyCreatedAt: string;
}

/** The account, the keys the window lies after and before, and its size. */
type OrderWindowParams = [accountId: string, ...after: OrderKey, ...before: OrderKey, limit: number];

// The list runs newest first and by id among equal times: a row comparison cannot mix the two directions, so
// each bound is spelled out. An account's orders are found by ticket_order_account_id_index.
export const orderWindow = (backwards: boolean) =>
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
