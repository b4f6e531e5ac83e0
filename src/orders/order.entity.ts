import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.ts';

/**
 * An order: several tickets bought together, all or none. Its tickets point at it (`ticket.order_id`), in the
 * order its lines listed them (`ticket.order_position`). The table is `ticket_order`: ORDER is an SQL keyword.
 */
export const Order = defineEntity({
  name: 'Order',
  tableName: 'ticket_order',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    // Orders outlive a deleted account, as their tickets do.
    account: () =>
      p.manyToOne(Account).nullable().deleteRule('set null').index('ticket_order_account_id_index'),
    email: p.string().length(254),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type Order = InferEntity<typeof Order>;
