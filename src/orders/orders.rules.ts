import { z } from 'zod';
import { TICKET_TYPES } from '../tickets/ticket.entity.ts';
import { EVENT_ID_RULE_JSON_SCHEMA, eventIdRule, visitFields } from '../tickets/tickets.rules.ts';

/** Lines of one order, and tickets of one order over all its lines. */
export const MAX_ORDER_LINES = 20;
export const MAX_ORDER_TICKETS = 20;

const QUANTITY_RULE = `must be an integer from 1 to ${MAX_ORDER_TICKETS}`;

/** One line of an order: `quantity` tickets of one kind for one date (and event). */
export const orderLineSchema = z
  .strictObject({
    ticketType: z.enum(TICKET_TYPES),
    ticketDate: z.iso.date('must be a calendar date YYYY-MM-DD that exists'),
    eventId: z.uuid('must be a UUID').nullish(),
    quantity: z.int(QUANTITY_RULE).min(1, QUANTITY_RULE).max(MAX_ORDER_TICKETS, QUANTITY_RULE),
    ...visitFields,
  })
  .superRefine(eventIdRule)
  .meta(EVENT_ID_RULE_JSON_SCHEMA);

export const placeOrderSchema = z
  .object({
    email: z.string().max(254, 'must be at most 254 characters'),
    lines: z
      .array(orderLineSchema)
      .min(1, `must hold 1 to ${MAX_ORDER_LINES} lines`)
      .max(MAX_ORDER_LINES, `must hold 1 to ${MAX_ORDER_LINES} lines`),
  })
  .superRefine((order, ctx) => {
    const tickets = order.lines.reduce((sum, line) => sum + line.quantity, 0);
    if (tickets > MAX_ORDER_TICKETS)
      ctx.addIssue({
        code: 'custom',
        path: ['lines'],
        message: `must hold at most ${MAX_ORDER_TICKETS} tickets in all (these hold ${tickets})`,
      });
  });

export type OrderLine = z.infer<typeof orderLineSchema>;
export type PlaceOrderInput = z.infer<typeof placeOrderSchema>;
