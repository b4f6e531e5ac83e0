// What the OpenAPI document (src/openapi/document.ts) says of each REST operation of routes.ts, by operationId:
// its prose, tags, request and response examples, the refusals its rules add, and the name of its success
// response's schema. Serving a request reads none of it.

import type { ErrorKind } from '../common/errors.ts';

/** Examples of the reference, with values this service would really send and accept. */
const EVENT = {
  eventId: 'dad4bce8-f5cb-4078-a211-995864315e39',
  name: 'Mermaid Treasure Identification and Analysis',
  location: 'Under the seaaa 🦀 🎶 🌊.',
  eventDescription:
    'Join us as we review and classify a rare collection of 20 thingamabobs, gadgets, gizmos, whoosits, and whatsits, kindly donated by Ariel.',
  dates: ['2030-09-05', '2030-09-08'],
  price: 30,
};
const { eventId: _assigned, ...NEW_EVENT } = EVENT;
const WEBHOOK_SUBSCRIPTION = {
  id: '5f1c2b0e-8d4a-4f7e-9a51-0c3e7b2d9f64',
  url: 'https://partner.example/hooks/museum',
  description: 'Partner CMS',
  createdAt: '2030-09-01T08:30:00.000Z',
};

export type Examples = Record<string, { summary: string; value: unknown }>;

export interface RouteDocs {
  summary: string;
  description: string;
  tags: string[];
  /** Request and response examples for the OpenAPI document, under the reference's names. */
  examples?: { request?: Examples; response?: Examples };
  /** Refusals the operation's rules can give beyond those every route of its kind may (auth, input, body). */
  problems?: ErrorKind[];
  /** The name of the success response's schema in the OpenAPI document (default: the GraphQL type's). */
  responseSchema?: string;
  /**
   * The operation honours an `Idempotency-Key` header (its GraphQL field reads it through purchaseOptions,
   * src/tickets/purchase-options.ts): declared as an optional header parameter, with its 422.
   */
  idempotencyKey?: true;
}

/** Every route's documentation, by its operationId. */
export const routeDocs: Record<string, RouteDocs> = {
  getMuseumHours: {
    summary: 'Get museum hours',
    description:
      'Get upcoming museum operating hours: open days only, ascending, from `startDate` (default today).',
    tags: ['Operations'],
    responseSchema: 'MuseumHours',
    examples: {
      response: {
        GetMuseumHoursResponseExample: {
          summary: 'Get hours response',
          value: [
            ['2030-09-09', '09:00', '18:00'],
            ['2030-09-10', '09:00', '18:00'],
            ['2030-09-11', '09:00', '18:00'],
            ['2030-09-12', '09:00', '18:00'],
            ['2030-09-13', '10:00', '16:00'],
          ].map(([date, timeOpen, timeClose]) => ({ date, timeOpen, timeClose })),
        },
      },
    },
  },
  listSpecialEvents: {
    summary: 'List special events',
    description:
      'Return a list of upcoming special events at the museum: events with at least one date in [`startDate`, `endDate`], ordered by their first date in that range, then name, then eventId.',
    tags: ['Events'],
    responseSchema: 'SpecialEventCollection',
    examples: {
      response: {
        ListSpecialEventsResponseExample: {
          summary: 'List of special events',
          value: [
            EVENT,
            {
              eventId: '2f14374a-9c65-4ee5-94b7-fba66d893483',
              name: 'Solar Telescope Demonstration',
              location: 'Far from the sun.',
              eventDescription: 'Look at the sun without going blind!',
              dates: ['2030-09-07', '2030-09-14'],
              price: 50,
            },
          ],
        },
      },
    },
  },
  createSpecialEvent: {
    summary: 'Create special events',
    description: 'Creates a new special event for the museum (staff only).',
    tags: ['Events'],
    responseSchema: 'SpecialEvent',
    examples: {
      request: { CreateSpecialEventRequestExample: { summary: 'Create special event', value: NEW_EVENT } },
      response: { CreateSpecialEventResponseExample: { summary: 'Special event created', value: EVENT } },
    },
  },
  getSpecialEvent: {
    summary: 'Get special event',
    description: 'Get details about a special event.',
    tags: ['Events'],
    responseSchema: 'SpecialEvent',
    examples: {
      response: {
        GetSpecialEventResponseExample: {
          summary: 'Get special event',
          value: {
            eventId: '6744a0da-4121-49cd-8479-f8cc20526495',
            name: 'Time Traveler Tea Party',
            location: 'Temporal Tearoom',
            eventDescription: 'Sip tea with important historical figures.',
            dates: ['2030-11-18', '2030-11-25', '2030-12-02'],
            price: 60,
          },
        },
      },
    },
  },
  updateSpecialEvent: {
    problems: ['preconditionFailed'],
    summary: 'Update special event',
    description:
      'Update the details of a special event (staff only): any non-empty subset of its fields, with the rules of create. New `dates` that drop some of its dates call off their tickets not used yet, as a deletion does, with `cancellationReason` told to their buyers.',
    tags: ['Events'],
    responseSchema: 'SpecialEvent',
    examples: {
      request: {
        UpdateSpecialEventRequestExample: {
          summary: 'Update special event request',
          value: { location: 'On the beach.', price: 15 },
        },
      },
      response: {
        UpdateSpecialEventResponseExample: {
          summary: 'Update special event',
          value: { ...EVENT, location: 'On the beach.', price: 15 },
        },
      },
    },
  },
  deleteSpecialEvent: {
    problems: ['preconditionFailed'],
    summary: 'Delete special event',
    description:
      'Delete a special event from the collection (staff only). Allows museum to cancel planned events: the event disappears from every read, and its tickets not used yet are called off in the same transaction: each becomes `cancelled` with `cancelledBy: museum` and the `reason`, what was paid for it is refunded through Stripe once, a pending order gets a new payment page for what is left (or expires, with nothing left), and each buyer is mailed once per order. A second delete answers 404 and sends nothing more.',
    tags: ['Events'],
  },
  buyMuseumTickets: {
    problems: ['conflict', 'unprocessable'],
    idempotencyKey: true,
    summary: 'Buy museum tickets',
    description:
      "Purchase museum tickets for general entry or special events. Where the museum takes payment online (`MUSEUM_PAYMENTS=stripe`), a visitor's ticket is a one-ticket order that holds its seat until `expiresAt`: the answer adds `orderId`, `status: pending` and `checkoutUrl`, where it is paid (Stripe Checkout); it admits no one until then. 503 when Stripe cannot be reached (nothing is held).",
    tags: ['Tickets'],
    responseSchema: 'MuseumTicketsConfirmation',
    examples: {
      request: {
        BuyGeneralTicketsRequestExample: {
          summary: 'General entry ticket',
          value: { ticketType: 'general', ticketDate: '2030-09-09', email: 'todd@example.com' },
        },
        BuyEventTicketsRequestExample: {
          summary: 'Special event ticket',
          value: {
            ticketType: 'event',
            eventId: EVENT.eventId,
            ticketDate: '2030-09-05',
            email: 'todd@example.com',
          },
        },
      },
      response: {
        BuyGeneralTicketsResponseExample: {
          summary: 'General entry ticket',
          value: {
            message: 'Museum general entry ticket purchased',
            ticketId: '382c0820-0530-4f4b-99af-13811ad0f17a',
            ticketType: 'general',
            ticketDate: '2030-09-09',
            confirmationCode: 'ticket-general-e5e5c6-dce78',
          },
        },
        BuyEventTicketsResponseExample: {
          summary: 'Special event ticket',
          value: {
            message: 'Museum special event ticket purchased',
            ticketId: 'b811f723-17b2-44f7-8952-24b03e43d8a9',
            ticketType: 'event',
            ticketDate: '2030-09-05',
            confirmationCode: 'ticket-event-9c55e0-8f82a',
            eventId: EVENT.eventId,
            eventName: EVENT.name,
          },
        },
      },
    },
  },
  getTicket: {
    summary: 'Get a ticket',
    description:
      "A ticket of yours (staff and gate accounts: anyone's): the purchase confirmation plus its `status`: `valid`, `used` once checked in at the door, `cancelled` once given back or its event was cancelled, `pending` while its order waits for payment. Anyone else gets 404.",
    tags: ['Tickets'],
    responseSchema: 'Ticket',
  },
  getTicketCode: {
    summary: 'Get ticket QR code',
    description:
      'Return an image of your ticket with scannable QR code, used for event entry: it reads as the confirmation code, exactly what `POST /check-ins` takes. Owner or staff (and gate accounts) only; anyone else gets 404. A ticket whose order waits for payment has no code yet: 409 `not paid`.',
    problems: ['conflict'],
    tags: ['Tickets'],
    responseSchema: 'TicketCodeImage',
  },
  createWebhookSubscription: {
    problems: ['conflict'],
    summary: 'Subscribe to event webhooks',
    description:
      'Subscribes an endpoint to `publishNewEvent` (staff only): every special event created or changed is POSTed to `url`, signed as [Standard Webhooks](https://www.standardwebhooks.com) define, with the `secret` answered here and never again. The URL must be https:// and its host resolve to public addresses only (no loopback, private, link-local or metadata address).',
    tags: ['Webhooks'],
    examples: {
      request: {
        CreateWebhookSubscriptionRequestExample: {
          summary: 'Subscribe an endpoint',
          value: { url: WEBHOOK_SUBSCRIPTION.url, description: WEBHOOK_SUBSCRIPTION.description },
        },
      },
      response: {
        CreateWebhookSubscriptionResponseExample: {
          summary: 'Subscribed; the secret is shown this once',
          value: { ...WEBHOOK_SUBSCRIPTION, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2N7QvQaN8mU=' },
        },
      },
    },
  },
  listWebhookSubscriptions: {
    summary: 'List webhook subscriptions',
    description: 'The webhook subscriptions, oldest first (staff only).',
    tags: ['Webhooks'],
    examples: {
      response: {
        ListWebhookSubscriptionsResponseExample: {
          summary: 'The subscriptions',
          value: [WEBHOOK_SUBSCRIPTION],
        },
      },
    },
  },
  getWebhookSubscription: {
    summary: 'Get a webhook subscription',
    description: 'One webhook subscription, without its secret (staff only).',
    tags: ['Webhooks'],
  },
  deleteWebhookSubscription: {
    summary: 'Delete a webhook subscription',
    description:
      'Stops the messages to an endpoint (staff only): the subscription and its deliveries, pending ones included, are deleted.',
    tags: ['Webhooks'],
  },
  listWebhookDeliveries: {
    summary: 'List webhook deliveries',
    description:
      "A subscription's deliveries, newest first (staff only): each message's `webhookId`, its event, whether it was `delivered`, is `pending` (with the next attempt's time) or `failed`, its attempts and the last answer's status.",
    tags: ['Webhooks'],
    examples: {
      response: {
        ListWebhookDeliveriesResponseExample: {
          summary: 'A retried message and a delivered one',
          value: [
            {
              id: '9b0e6c52-3f7a-4d1e-8c2b-6a5f4e3d2c1b',
              webhookId: 'msg_6c1f7a4e-2f0b-4c8e-9d3a-5b7e1f2a9c40',
              eventId: EVENT.eventId,
              status: 'pending',
              attempts: 2,
              lastResponseStatus: 503,
              nextAttemptAt: '2030-09-01T09:05:12.000Z',
              createdAt: '2030-09-01T09:00:00.000Z',
            },
            {
              id: '1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
              webhookId: 'msg_0a9b8c7d-6e5f-4d3c-2b1a-0f9e8d7c6b5a',
              eventId: EVENT.eventId,
              status: 'delivered',
              attempts: 1,
              lastResponseStatus: 202,
              createdAt: '2030-08-30T14:00:00.000Z',
              deliveredAt: '2030-08-30T14:00:00.215Z',
            },
          ],
        },
      },
    },
  },
};
