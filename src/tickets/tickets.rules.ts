import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { localTime } from '../hours/hours.rules.ts';
import { categoryKey } from '../prices/prices.rules.ts';
import { TICKET_TYPES, type TicketKind } from './ticket.entity.ts';

/**
 * eventId is required for an event ticket and forbidden for a general one; only general admission has an
 * entry time (whether the day has timed entry is the sale's to check).
 */
export function eventIdRule(
  input: { ticketType: TicketKind; eventId?: string | null; entryTime?: string | null },
  ctx: z.RefinementCtx,
): void {
  if (input.ticketType === 'event' && !input.eventId) {
    ctx.addIssue({ code: 'custom', path: ['eventId'], message: 'is required for an event ticket' });
  }
  if (input.ticketType === 'general' && input.eventId) {
    ctx.addIssue({ code: 'custom', path: ['eventId'], message: 'must not be given for a general ticket' });
  }
  if (input.ticketType === 'event' && input.entryTime) {
    ctx.addIssue({
      code: 'custom',
      path: ['entryTime'],
      message: 'must not be given for an event ticket (entry slots are for general admission)',
    });
  }
}

/** What a purchase may add to the reference's fields: the visitor category and a timed ticket's entry time. */
export const visitFields = {
  category: categoryKey.nullish(),
  entryTime: localTime.nullish(),
};

/**
 * eventIdRule in JSON Schema, for the OpenAPI document. (`additionalProperties: true` changes nothing here;
 * it tells linters the branches are not closed.)
 */
export const EVENT_ID_RULE_JSON_SCHEMA = {
  if: { properties: { ticketType: { const: 'event' } }, required: ['ticketType'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword
  then: {
    required: ['eventId'],
    properties: { eventId: { type: 'string', format: 'uuid', maxLength: 36 } },
    additionalProperties: true,
  },
  else: { properties: { eventId: { type: 'null' } }, additionalProperties: true },
};

export const buyTicketsSchema = z
  .object({
    ticketType: z.enum(TICKET_TYPES),
    ticketDate: z.iso.date('must be a calendar date YYYY-MM-DD that exists'),
    email: z.string().max(254, 'must be at most 254 characters'),
    eventId: z.uuid('must be a UUID').nullish(),
    ...visitFields,
  })
  .superRefine(eventIdRule)
  .meta(EVENT_ID_RULE_JSON_SCHEMA);

export type BuyTicketsInput = z.infer<typeof buyTicketsSchema>;

export const PURCHASE_MESSAGES: Record<TicketKind, string> = {
  general: 'Museum general entry ticket purchased',
  event: 'Museum special event ticket purchased',
};

/** A confirmation code as newConfirmationCode writes it (and a ticket's QR code holds it). */
export const CONFIRMATION_CODE_PATTERN = /^ticket-(general|event)-[0-9a-f]{6}-[0-9a-f]{5}$/;

/** The longest confirmation code: a general ticket's. */
export const CONFIRMATION_CODE_LENGTH = 'ticket-general-e5e5c6-dce78'.length;

/**
 * `ticket-{type}-{6 hex}-{5 hex}`: 44 random bits, checked for uniqueness by the database. They are the first
 * 11 hex digits of a random UUID (all random; its version digit comes later): Node draws those from a buffer
 * of secure random bytes, where `randomBytes(6)` asks OpenSSL on every call (~5 µs a purchase under load).
 */
export function newConfirmationCode(type: TicketKind): string {
  const random = randomUUID();
  return `ticket-${type}-${random.slice(0, 6)}-${random.slice(6, 8)}${random.slice(9, 12)}`;
}
