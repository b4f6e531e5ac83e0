import { CANCELLATION_REASON_MAX } from '../events/events.rules.ts';
// The OpenAPI document's own prose (src/openapi/document.ts): its description, the tags' descriptions, the
// reference's shared parameters and the webhook the museum sends. What it says of each operation is in
// route-docs.ts.

export const DESCRIPTION = `Tickets, opening hours and special events of the museum. The REST operations below are those of
the [Redocly Museum API 1.2.1](https://github.com/Redocly/museum-openapi-example); every one is a thin mapping onto
the GraphQL schema served at [/graphql](/graphql) (GraphiQL in a browser), so both share validation,
authentication, pagination and errors.

**Credentials.** Every operation needs HTTP Basic credentials of an account (\`visitor\` or \`staff\`); creating,
changing and deleting events needs \`staff\`. A \`gate\` account (a scanner at the door) may only check tickets
in (\`POST /check-ins\`, which also takes \`staff\`) and read tickets (anyone's, as staff); anything else answers it
403. Missing or wrong credentials answer 401 with
\`WWW-Authenticate\`, a known account without the role 403. Credentials are checked before the input, so a
caller without the right learns nothing about it.

**Errors** are [RFC 9457](https://www.rfc-editor.org/rfc/rfc9457) \`application/problem+json\` bodies
(\`Problem\`); a validation failure (400) names every offending field in \`errors\` (the first 100). A known path with another
method answers 405 with \`Allow\`; an unknown path 404. Request bodies are JSON objects with no unknown or
server-assigned fields.

**Dates** are \`YYYY-MM-DD\` calendar dates that exist; "today" is the museum's time zone. **Text** is any Unicode
text (lengths count code points) but the NUL character and lone surrogates.

**Lists** are paged with \`page\` (≥ 1, default 1) and \`limit\` (1…30, default 10); a page past the end is
\`[]\`. List responses carry an RFC 8288 \`Link\` header (\`first\`, \`prev\`, \`next\`); event lists also
\`X-Total-Count\`.`;

export const TAGS: Record<string, string> = {
  Operations: 'Operational information about the museum.',
  Events: 'Special events hosted by the museum.',
  Tickets: 'Museum tickets for general entrance or special events.',
  Orders: 'Several tickets bought together, all or none.',
  Prices: 'What a visit costs, by visitor category.',
  Reports: 'What was sold, given back and used (staff only).',
  'Check-ins': "Admission at the door: a scanner sends the code it read from a ticket's QR code.",
  Payments: "Payment through Stripe Checkout: Stripe's calls to the service.",
  Webhooks: 'Partners told of new and changed special events instead of polling (staff only).',
  Privacy:
    "Buyers' personal data: exported and erased on request (staff), an account holder's own, and the record of each request.",
};

/** The reference's shared parameters, by the variable they set. Their schemas come from the rules. */
export const PARAMETERS: Record<string, { component: string; description: string; example: unknown }> = {
  startDate: {
    component: 'StartDate',
    description: "Starting date to retrieve future operating hours or events from. Defaults to today's date.",
    example: '2030-10-29',
  },
  endDate: {
    component: 'EndDate',
    description:
      'End of a date range to retrieve special events for (inclusive). Defaults to 7 days after `startDate`.',
    example: '2030-11-05',
  },
  page: { component: 'PaginationPage', description: 'Page number to retrieve.', example: 2 },
  limit: { component: 'PaginationLimit', description: 'Number of items per page.', example: 15 },
  eventId: {
    component: 'EventId',
    description: 'Identifier for a special event.',
    example: 'dad4bce8-f5cb-4078-a211-995864315e39',
  },
  subscriptionId: {
    component: 'WebhookSubscriptionId',
    description: 'Identifier for a webhook subscription.',
    example: '5f1c2b0e-8d4a-4f7e-9a51-0c3e7b2d9f64',
  },
  orderId: {
    component: 'OrderId',
    description: 'Identifier for an order of tickets.',
    example: '0b6f1c4e-7d2a-4c39-9e85-3f1a2b4c5d6e',
  },
  ticketId: {
    component: 'TicketId',
    description: 'Identifier for a ticket to a museum event.',
    example: 'a54a57ca-36f8-421b-a6b4-2e8f26858a4c',
  },
};

/** A header of every webhook message, as Standard Webhooks define it. */
const webhookHeader = (name: string, description: string, pattern: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', pattern, maxLength: example.length },
  example,
});

/**
 * The reference's `publishNewEvent`: what the museum POSTs to each webhook subscription (src/webhooks), with
 * the signature headers the reference leaves unsaid.
 */
export const PUBLISH_NEW_EVENT = {
  post: {
    summary: 'New special event added',
    description:
      'Publish details of a new or updated event: the event exactly as `GET /special-events/{eventId}` answers it, POSTed to every webhook subscription and signed as [Standard Webhooks](https://www.standardwebhooks.com) define. Any 2xx within 10 s is delivered; anything else is retried with backoff (`MUSEUM_WEBHOOK_RETRY_SCHEDULE`), with the same `webhook-id`: delivery is at least once, so dedupe by it. A deleted event is published once more, as it was, with `cancelled: true` and the reason staff gave (`cancellationReason`), if any: its tickets were called off.',
    operationId: 'publishNewEvent',
    tags: ['Events'],
    security: [],
    parameters: [
      webhookHeader(
        'webhook-id',
        'The message: the same on every attempt.',
        '^msg_[0-9a-f-]{36}$',
        'msg_6c1f7a4e-2f0b-4c8e-9d3a-5b7e1f2a9c40',
      ),
      webhookHeader(
        'webhook-timestamp',
        'Unix seconds when this attempt was signed.',
        '^\\d{1,10}$',
        '1919510400',
      ),
      webhookHeader(
        'webhook-signature',
        '`v1,` and the base64 HMAC-SHA256, keyed with the subscription secret, of `{webhook-id}.{webhook-timestamp}.{body}`.',
        '^v1,[A-Za-z0-9+/]{43}=$',
        'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
      ),
    ],
    requestBody: {
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/SpecialEvent' },
              {
                type: 'object',
                properties: {
                  cancelled: {
                    type: 'boolean',
                    enum: [true],
                    description: 'Present on the last message of a deleted event: it was called off.',
                  },
                  cancellationReason: {
                    type: 'string',
                    maxLength: CANCELLATION_REASON_MAX,
                    pattern: '^[^\\u0000]*$',
                    description: 'Why staff deleted the event, when they said (DELETE ?reason=).',
                  },
                },
              },
            ],
          },
          examples: { default_example: { $ref: '#/components/examples/GetSpecialEventResponseExample' } },
        },
      },
    },
    responses: { '202': { description: 'Data accepted.' } },
  },
};
