// The REST surface of the Redocly Museum API 1.2.1, one row per operation. Each row names its GraphQL
// operation; adapter.ts turns path and query parameters and the JSON body into its variables and the
// root field's value into the response. Nothing else happens here: rules live in the domain folders.

import type { ErrorKind } from '../common/errors.ts';

const SPECIAL_EVENT_FIELDS = 'eventId name location eventDescription dates price capacity';
const WEBHOOK_SUBSCRIPTION_FIELDS = 'id url description createdAt';
const WEBHOOK_DELIVERY_FIELDS =
  'id webhookId eventId status attempts lastResponseStatus nextAttemptAt createdAt deliveredAt';
const CONFIRMATION_FIELDS = 'message ticketId ticketType ticketDate confirmationCode eventId eventName';

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

export interface Route {
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** A URLPattern pathname; its named groups become variables of the same name. */
  path: string;
  /**
   * Query parameters the operation reads, each becoming the variable of the same name (an integer where the
   * document declares the variable `Int`).
   */
  query?: string[];
  /** The JSON request body becomes the `input` variable. */
  body?: true;
  /** Request headers the operation reads, by variable name (`ifMatch: 'if-match'`), when sent. */
  headers?: Record<string, string>;
  /**
   * The root field's `version` is the resource's entity tag: sent as `ETag` (and compared with
   * `If-None-Match`) instead of a digest of the body, and left out of the body.
   */
  etag?: 'version';
  document: string;
  status: 200 | 201 | 204;
  /** Where a created resource lives, for `Location`. */
  location?: (result: Record<string, unknown>) => string;
  /** Answer for a root field that came back null. */
  notFound?: string;
  /** A body other than JSON, made from the root field's value. */
  produces?: {
    contentType: string;
    render: (result: Record<string, unknown>) => Promise<Uint8Array<ArrayBuffer>>;
  };
  /**
   * Who may keep the answer. Default: reads `private, no-cache` (every read needs credentials, so no shared
   * cache may keep one, and a browser asks again before reusing it); writes `no-store`.
   */
  cacheControl?: 'no-store';
  /**
   * A paged list, answered with RFC 8288 `Link` headers: `true` when the root field is the list (and
   * `X-Total-Count` when the operation also selects `total`), `'items'` when it is a page `{items, total}`.
   */
  paged?: true | 'items';
  /** Documentation for /openapi.json (src/rest/openapi.ts). */
  summary: string;
  description: string;
  tags: string[];
  /** Request and response examples for the OpenAPI document, under the reference's names. */
  examples?: { request?: Examples; response?: Examples };
  /** Refusals the operation's rules can give beyond those every route of its kind may (auth, input, body). */
  problems?: ErrorKind[];
  /** The name of the success response's schema in the OpenAPI document (default: the GraphQL type's). */
  responseSchema?: string;
}

const page = ['page', 'limit'];

export const routes: Route[] = [
  {
    operationId: 'getMuseumHours',
    summary: 'Get museum hours',
    description:
      'Get upcoming museum operating hours: open days only, ascending, from `startDate` (default today).',
    tags: ['Operations'],
    responseSchema: 'MuseumHours',
    method: 'GET',
    path: '/museum-hours',
    query: ['startDate', ...page],
    document: `query getMuseumHours($startDate: Date, $page: Int, $limit: Int) {
      museumHours(startDate: $startDate, page: $page, limit: $limit) { date timeOpen timeClose } }`,
    status: 200,
    paged: true,
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
  {
    operationId: 'listSpecialEvents',
    summary: 'List special events',
    description:
      'Return a list of upcoming special events at the museum: events with at least one date in [`startDate`, `endDate`], ordered by their first date in that range, then name, then eventId.',
    tags: ['Events'],
    responseSchema: 'SpecialEventCollection',
    method: 'GET',
    path: '/special-events',
    query: ['startDate', 'endDate', ...page],
    document: `query listSpecialEvents($startDate: Date, $endDate: Date, $page: Int, $limit: Int) {
      specialEventPage(startDate: $startDate, endDate: $endDate, page: $page, limit: $limit) {
        items { ${SPECIAL_EVENT_FIELDS} } total } }`,
    status: 200,
    paged: 'items',
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
  {
    operationId: 'createSpecialEvent',
    summary: 'Create special events',
    description: 'Creates a new special event for the museum (staff only).',
    tags: ['Events'],
    responseSchema: 'SpecialEvent',
    method: 'POST',
    path: '/special-events',
    body: true,
    document: `mutation createSpecialEvent($input: CreateSpecialEventInput!) {
      createSpecialEvent(input: $input) { ${SPECIAL_EVENT_FIELDS} version } }`,
    etag: 'version',
    status: 201,
    location: (event) => `/special-events/${event.eventId}`,
    examples: {
      request: { CreateSpecialEventRequestExample: { summary: 'Create special event', value: NEW_EVENT } },
      response: { CreateSpecialEventResponseExample: { summary: 'Special event created', value: EVENT } },
    },
  },
  {
    operationId: 'getSpecialEvent',
    summary: 'Get special event',
    description: 'Get details about a special event.',
    tags: ['Events'],
    responseSchema: 'SpecialEvent',
    method: 'GET',
    path: '/special-events/:eventId',
    document: `query getSpecialEvent($eventId: UUID!) { specialEvent(eventId: $eventId) { ${SPECIAL_EVENT_FIELDS} version } }`,
    etag: 'version',
    status: 200,
    notFound: 'There is no special event with that eventId',
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
  {
    operationId: 'updateSpecialEvent',
    problems: ['preconditionFailed'],
    summary: 'Update special event',
    description:
      'Update the details of a special event (staff only): any non-empty subset of its five fields, with the rules of create.',
    tags: ['Events'],
    responseSchema: 'SpecialEvent',
    method: 'PATCH',
    path: '/special-events/:eventId',
    body: true,
    headers: { ifMatch: 'if-match' },
    document: `mutation updateSpecialEvent($eventId: UUID!, $input: UpdateSpecialEventInput!, $ifMatch: String) {
      updateSpecialEvent(eventId: $eventId, input: $input, ifMatch: $ifMatch) { ${SPECIAL_EVENT_FIELDS} version } }`,
    etag: 'version',
    status: 200,
    notFound: 'There is no special event with that eventId',
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
  {
    operationId: 'deleteSpecialEvent',
    problems: ['preconditionFailed'],
    summary: 'Delete special event',
    description:
      'Delete a special event from the collection (staff only). Allows museum to cancel planned events: the event disappears from every read and its sold tickets become `cancelled`.',
    tags: ['Events'],
    method: 'DELETE',
    path: '/special-events/:eventId',
    headers: { ifMatch: 'if-match' },
    document: `mutation deleteSpecialEvent($eventId: UUID!, $ifMatch: String) {
      deleteSpecialEvent(eventId: $eventId, ifMatch: $ifMatch) }`,
    status: 204,
    notFound: 'There is no special event with that eventId',
  },
  {
    operationId: 'buyMuseumTickets',
    problems: ['conflict', 'unprocessable'],
    summary: 'Buy museum tickets',
    description: 'Purchase museum tickets for general entry or special events.',
    tags: ['Tickets'],
    responseSchema: 'MuseumTicketsConfirmation',
    method: 'POST',
    path: '/tickets',
    body: true,
    document: `mutation buyMuseumTickets($input: BuyMuseumTicketsInput!) {
      buyMuseumTickets(input: $input) { ${CONFIRMATION_FIELDS} } }`,
    status: 201,
    location: (ticket) => `/tickets/${ticket.ticketId}`,
    cacheControl: 'no-store',
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
  {
    operationId: 'getTicket',
    summary: 'Get a ticket',
    description:
      "A ticket of yours (staff: anyone's): the purchase confirmation plus its `status`, `cancelled` once its event was cancelled. Anyone else gets 404.",
    tags: ['Tickets'],
    responseSchema: 'Ticket',
    method: 'GET',
    path: '/tickets/:ticketId',
    document: `query getTicket($ticketId: UUID!) { ticket(ticketId: $ticketId) { ${CONFIRMATION_FIELDS} status } }`,
    status: 200,
    notFound: 'There is no ticket with that ticketId',
    // A ticket and its code admit their holder: no cache keeps them, not even the browser's.
    cacheControl: 'no-store',
  },
  {
    operationId: 'getTicketCode',
    summary: 'Get ticket QR code',
    description:
      'Return an image of your ticket with scannable QR code, used for event entry: it reads as the confirmation code. Owner or staff only; anyone else gets 404.',
    tags: ['Tickets'],
    responseSchema: 'TicketCodeImage',
    method: 'GET',
    path: '/tickets/:ticketId/qr',
    document: `query getTicketCode($ticketId: UUID!) { ticket(ticketId: $ticketId) { confirmationCode } }`,
    status: 200,
    notFound: 'There is no ticket with that ticketId',
    cacheControl: 'no-store',
    produces: {
      contentType: 'image/png',
      render: async (ticket) => {
        // The QR encoder is loaded when the first code is asked for.
        const { ticketCodePng } = await import('../tickets/ticket-code.ts');
        return new Uint8Array(await ticketCodePng(String(ticket.confirmationCode)));
      },
    },
  },
  {
    operationId: 'createWebhookSubscription',
    problems: ['conflict'],
    summary: 'Subscribe to event webhooks',
    description:
      'Subscribes an endpoint to `publishNewEvent` (staff only): every special event created or changed is POSTed to `url`, signed as [Standard Webhooks](https://www.standardwebhooks.com) define, with the `secret` answered here and never again. The URL must be https:// and its host resolve to public addresses only (no loopback, private, link-local or metadata address).',
    tags: ['Webhooks'],
    method: 'POST',
    path: '/webhook-subscriptions',
    body: true,
    document: `mutation createWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
      createWebhookSubscription(input: $input) { ${WEBHOOK_SUBSCRIPTION_FIELDS} secret } }`,
    status: 201,
    location: (subscription) => `/webhook-subscriptions/${subscription.id}`,
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
  {
    operationId: 'listWebhookSubscriptions',
    summary: 'List webhook subscriptions',
    description: 'The webhook subscriptions, oldest first (staff only).',
    tags: ['Webhooks'],
    method: 'GET',
    path: '/webhook-subscriptions',
    query: page,
    document: `query listWebhookSubscriptions($page: Int, $limit: Int) {
      webhookSubscriptions(page: $page, limit: $limit) { items { ${WEBHOOK_SUBSCRIPTION_FIELDS} } total } }`,
    status: 200,
    paged: 'items',
    examples: {
      response: {
        ListWebhookSubscriptionsResponseExample: {
          summary: 'The subscriptions',
          value: [WEBHOOK_SUBSCRIPTION],
        },
      },
    },
  },
  {
    operationId: 'getWebhookSubscription',
    summary: 'Get a webhook subscription',
    description: 'One webhook subscription, without its secret (staff only).',
    tags: ['Webhooks'],
    method: 'GET',
    path: '/webhook-subscriptions/:subscriptionId',
    document: `query getWebhookSubscription($subscriptionId: UUID!) {
      webhookSubscription(id: $subscriptionId) { ${WEBHOOK_SUBSCRIPTION_FIELDS} } }`,
    status: 200,
    notFound: 'There is no webhook subscription with that subscriptionId',
  },
  {
    operationId: 'deleteWebhookSubscription',
    summary: 'Delete a webhook subscription',
    description:
      'Stops the messages to an endpoint (staff only): the subscription and its deliveries, pending ones included, are deleted.',
    tags: ['Webhooks'],
    method: 'DELETE',
    path: '/webhook-subscriptions/:subscriptionId',
    document: `mutation deleteWebhookSubscription($subscriptionId: UUID!) {
      deleteWebhookSubscription(id: $subscriptionId) }`,
    status: 204,
    notFound: 'There is no webhook subscription with that subscriptionId',
  },
  {
    operationId: 'listWebhookDeliveries',
    summary: 'List webhook deliveries',
    description:
      "A subscription's deliveries, newest first (staff only): each message's `webhookId`, its event, whether it was `delivered`, is `pending` (with the next attempt's time) or `failed`, its attempts and the last answer's status.",
    tags: ['Webhooks'],
    method: 'GET',
    path: '/webhook-subscriptions/:subscriptionId/deliveries',
    query: page,
    document: `query listWebhookDeliveries($subscriptionId: UUID!, $page: Int, $limit: Int) {
      webhookDeliveries(subscriptionId: $subscriptionId, page: $page, limit: $limit) {
        items { ${WEBHOOK_DELIVERY_FIELDS} } total } }`,
    status: 200,
    paged: 'items',
    notFound: 'There is no webhook subscription with that subscriptionId',
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
];
