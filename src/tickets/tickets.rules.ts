import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { TICKET_TYPES, type TicketKind } from './ticket.entity.ts';

export const buyTicketsSchema = z
  .object({
    ticketType: z.enum(TICKET_TYPES),
    ticketDate: z.iso.date('must be a calendar date YYYY-MM-DD that exists'),
    email: z.string().max(254, 'must be at most 254 characters'),
    eventId: z.uuid('must be a UUID').nullish(),
  })
  .superRefine((input, ctx) => {
    if (input.ticketType === 'event' && !input.eventId) {
      ctx.addIssue({ code: 'custom', path: ['eventId'], message: 'is required for an event ticket' });
    }
    if (input.ticketType === 'general' && input.eventId) {
      ctx.addIssue({ code: 'custom', path: ['eventId'], message: 'must not be given for a general ticket' });
    }
  })
  .meta({
    // The same rule in JSON Schema, for the OpenAPI document. (`additionalProperties: true` changes nothing
    // here; it tells linters the branches are not closed.)
    if: { properties: { ticketType: { const: 'event' } }, required: ['ticketType'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword
    then: { required: ['eventId'], properties: { eventId: { type: 'string' } }, additionalProperties: true },
    else: { properties: { eventId: { type: 'null' } }, additionalProperties: true },
  });

export type BuyTicketsInput = z.infer<typeof buyTicketsSchema>;

export const PURCHASE_MESSAGES: Record<TicketKind, string> = {
  general: 'Museum general entry ticket purchased',
  event: 'Museum special event ticket purchased',
};

/** `ticket-{type}-{6 hex}-{5 hex}`: 44 random bits, checked for uniqueness by the database. */
export function newConfirmationCode(type: TicketKind): string {
  const hex = randomBytes(6).toString('hex');
  return `ticket-${type}-${hex.slice(0, 6)}-${hex.slice(6, 11)}`;
}
