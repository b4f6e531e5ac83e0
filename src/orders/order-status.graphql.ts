import { builder } from '../graphql/builder.ts';
import type { OrderStatus } from '../tickets/order.entity.ts';

export const OrderStatusEnum = builder.enumType('OrderStatus', {
  description:
    'pending: its seats are held while its buyer pays (until expiresAt); confirmed: sold; expired: the hold ran out and its seats were given back; cancelled: every ticket was given back; refunded: every ticket was given back and what was paid is refunded.',
  values: {
    pending: { value: 'pending', description: 'Its seats are held while its buyer pays, until expiresAt.' },
    confirmed: { value: 'confirmed', description: 'Sold: paid, or placed without waiting for payment.' },
    expired: { value: 'expired', description: 'The hold ran out unpaid; its seats were given back.' },
    cancelled: { value: 'cancelled', description: 'Every ticket was given back.' },
    refunded: {
      value: 'refunded',
      description: 'Every ticket was given back and what was paid is refunded.',
    },
  } satisfies Record<OrderStatus, { value: OrderStatus; description: string }>,
});
