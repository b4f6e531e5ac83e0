import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/** The general-admission scope of ticket_sales; event sales are scoped by the event's id. */
export const GENERAL_ADMISSION = 'general';

/**
 * Tickets sold per scope (general admission, or one event) and date. Purchases raise the count with one
 * conditional upsert, whose row lock orders concurrent buyers: capacity holds on any number of instances.
 */
export const TicketSales = defineEntity({
  name: 'TicketSales',
  tableName: 'ticket_sales',
  properties: {
    scope: p.string().length(36).primary(),
    date: p.date().primary(),
    sold: p.integer(),
  },
});

export type TicketSales = InferEntity<typeof TicketSales>;
