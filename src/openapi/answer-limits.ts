// What the answers' fields hold at most, for the OpenAPI document's response schemas (schemas.ts). A field the
// GraphQL type calls a plain String, Int or list holds only what the rule that admitted it allowed (an event's
// name, a category key), what the service makes (a confirmation code, a secret) or what its column holds. By
// GraphQL type and field, the root lists under Query. Scalars (UUID, Date, DateTime, EmailAddress) describe
// themselves (graphql/scalars.ts), and any other Int is GraphQL's 32-bit integer (schemas.ts).

import type { z } from 'zod';
import { accountName } from '../accounts/accounts.rules.ts';
import {
  CANCELLATION_REASON_MAX,
  eventFieldsSchema,
  MAX_CAPACITY,
  MAX_EVENT_DATES,
} from '../events/events.rules.ts';
import { MIN_SLOT_MINUTES } from '../hours/entry-slots.rules.ts';
import { MAX_ORDER_TICKETS } from '../orders/orders.rules.ts';
import { categoryKey, MAX_CATEGORIES, priceCategorySchema } from '../prices/prices.rules.ts';
import {
  CONFIRMATION_CODE_LENGTH,
  CONFIRMATION_CODE_PATTERN,
  PURCHASE_MESSAGES,
} from '../tickets/tickets.rules.ts';
import { webhookSubscriptionSchema } from '../webhooks/webhooks.rules.ts';
import { fromZod, type Json } from './schemas.ts';

/** A text field's length and pattern as its rule (common/text.ts textField) admitted it. */
function admittedText(rule: z.ZodType): Json {
  const { minLength, maxLength, pattern } = fromZod(rule);
  return { minLength, maxLength, pattern };
}

/** Text the service keeps in a column of `maxLength` characters: PostgreSQL's text holds no NUL. */
const storedText = (maxLength: number): Json => ({ maxLength, pattern: '^[^\\u0000]*$' });
const count = (maximum = 2 ** 31 - 1): Json => ({ minimum: 0, maximum });

const email = { format: 'email', maxLength: 254 };
const currency = { pattern: '^[A-Z]{3}$', maxLength: 3 };
const uuids = { maxItems: MAX_ORDER_TICKETS, items: { type: 'string', format: 'uuid', maxLength: 36 } };
const category = fromZod(categoryKey);
const eventName = admittedText(eventFieldsSchema.shape.name);

const TICKET: Record<string, Json> = {
  category,
  confirmationCode: { pattern: CONFIRMATION_CODE_PATTERN.source, maxLength: CONFIRMATION_CODE_LENGTH },
  eventName,
  message: { enum: Object.values(PURCHASE_MESSAGES) },
  cancellationReason: storedText(CANCELLATION_REASON_MAX),
};

const WEBHOOK_SUBSCRIPTION: Record<string, Json> = {
  url: fromZod(webhookSubscriptionSchema.shape.url),
  description: storedText(500),
};

export const ANSWER_LIMITS: Record<string, Record<string, Json>> = {
  Query: {
    // A day's slots, one every MIN_SLOT_MINUTES at least.
    entrySlots: { maxItems: Math.ceil((24 * 60) / MIN_SLOT_MINUTES) },
    specialEventAvailability: { maxItems: MAX_EVENT_DATES },
  },
  SpecialEvent: {
    name: eventName,
    location: admittedText(eventFieldsSchema.shape.location),
    eventDescription: admittedText(eventFieldsSchema.shape.eventDescription),
    dates: { maxItems: MAX_EVENT_DATES },
    capacity: count(MAX_CAPACITY),
    ownPrices: { maxItems: MAX_CATEGORIES },
  },
  EventPrice: { category },
  EventDateAvailability: { capacity: count(MAX_CAPACITY), remaining: count(MAX_CAPACITY), sold: count() },
  MuseumDay: { remaining: count() },
  EntrySlot: { capacity: count(), remaining: count() },
  Ticket: { ...TICKET, admissionCode: TICKET.confirmationCode! },
  MuseumTicketsConfirmation: { ...TICKET, checkoutUrl: { format: 'uri', maxLength: 2048 } },
  Order: {
    email,
    currency,
    checkoutUrl: { format: 'uri', maxLength: 2048 },
    tickets: { maxItems: MAX_ORDER_TICKETS },
  },
  EmailDelivery: { attempts: count(), lastError: storedText(500) },
  PriceList: { currency, categories: { maxItems: MAX_CATEGORIES } },
  PriceCategory: { category, name: admittedText(priceCategorySchema.shape.name) },
  SalesReport: { currency },
  SalesRow: { category, eventName, sold: count(), cancelled: count(), refunded: count(), checkedIn: count() },
  WebhookSubscription: WEBHOOK_SUBSCRIPTION,
  // `whsec_` and the base64 of 32 random bytes (webhooks.service.ts).
  NewWebhookSubscription: {
    ...WEBHOOK_SUBSCRIPTION,
    secret: { pattern: '^whsec_[A-Za-z0-9+/]{43}=$', maxLength: 50 },
  },
  WebhookDelivery: {
    webhookId: { pattern: '^msg_[0-9a-f-]{36}$', maxLength: 40 },
    attempts: count(),
    lastResponseStatus: { minimum: 100, maximum: 599 },
  },
  PersonalData: { email, currency },
  PersonalAccount: { name: fromZod(accountName) },
  PersonalTicket: { ...TICKET, email },
  PersonalOrder: { email, ticketIds: uuids },
  // A mail's recipient column is wider than an address: a buyer's address is all it ever holds.
  PersonalMail: { recipient: email, attempts: count(), ticketIds: uuids },
  PrivacyCounts: {
    accounts: count(),
    idempotencyRecords: count(),
    mails: count(),
    orders: count(),
    tickets: count(),
  },
};
