// What the OpenAPI document says of the operations of a visit (orders, check-in at the door, cancellation),
// by operationId, as route-docs.ts does for the rest; document.ts reads both.

import type { RouteDocs } from './route-docs.ts';

const EVENT_ID = 'dad4bce8-f5cb-4078-a211-995864315e39';
const EVENT_NAME = 'Mermaid Treasure Identification and Analysis';

const ticket = (ticketType: 'general' | 'event', ticketId: string, confirmationCode: string) => ({
  message:
    ticketType === 'general'
      ? 'Museum general entry ticket purchased'
      : 'Museum special event ticket purchased',
  ticketId,
  ticketType,
  ticketDate: ticketType === 'general' ? '2030-09-09' : '2030-09-05',
  confirmationCode,
  ...(ticketType === 'event' ? { eventId: EVENT_ID, eventName: EVENT_NAME } : {}),
  category: 'adult',
  price: ticketType === 'general' ? 20 : 30,
  status: 'valid',
});

const FAMILY_ORDER = {
  orderId: '0b6f1c4e-7d2a-4c39-9e85-3f1a2b4c5d6e',
  email: 'todd@example.com',
  createdAt: '2030-09-01T08:30:00.000Z',
  status: 'confirmed',
  total: 100,
  currency: 'EUR',
  refundedAmount: 0,
  tickets: [
    ticket('general', '382c0820-0530-4f4b-99af-13811ad0f17a', 'ticket-general-e5e5c6-dce78'),
    ticket('general', '6f0e2d1c-4b3a-4f5e-8d7c-9a1b2c3d4e5f', 'ticket-general-1a2b3c-4d5e6'),
    ticket('event', 'b811f723-17b2-44f7-8952-24b03e43d8a9', 'ticket-event-9c55e0-8f82a'),
    ticket('event', 'c2d3e4f5-a6b7-4c8d-9e0f-1a2b3c4d5e6f', 'ticket-event-0f1e2d-3c4b5'),
  ],
};

export const visitDocs: Record<string, RouteDocs> = {
  listMyTickets: {
    summary: 'List your tickets',
    description:
      "Your own tickets (staff too: their own, not everyone's), ordered by ticket date, then purchase time, with their `status` (`valid`, `used`, `cancelled`); `startDate` and `endDate` bound the ticket dates when given (`endDate` before `startDate`: 400). Paged as the other lists, with `Link` and `X-Total-Count`. GraphQL: `me { tickets { … } }`, which can also bring each ticket's event.",
    tags: ['Tickets'],
    responseSchema: 'TicketCollection',
    examples: {
      response: {
        ListMyTicketsResponseExample: { summary: 'Your tickets', value: FAMILY_ORDER.tickets },
      },
    },
  },
  getSpecialEventAvailability: {
    summary: 'Get special event availability',
    description:
      'Each date of a special event, ascending, with its `capacity` and the tickets it has `remaining` (both left out when the event is unlimited), exact at the time of reading: the counters purchases and cancellations keep. Staff also see `sold`. Unknown or deleted event: 404.',
    tags: ['Events'],
    responseSchema: 'EventAvailability',
    examples: {
      response: {
        GetSpecialEventAvailabilityResponseExample: {
          summary: 'Two dates, one nearly sold out',
          value: [
            { date: '2030-09-05', capacity: 40, remaining: 3 },
            { date: '2030-09-08', capacity: 40, remaining: 40 },
          ],
        },
      },
    },
  },
  cancelTicket: {
    problems: ['conflict'],
    summary: 'Cancel a ticket',
    description:
      "Gives a ticket back: its owner may until the day before its date, staff at any time; a ticket that was checked in cannot be (409). Its seat can be bought again at once, what was paid for it is refunded through Stripe (once, retried until Stripe answers), and the ticket stays readable with `status: cancelled`. A ticket whose order waits for payment goes only with its order (409). Cancelling a cancelled ticket answers 204 again. Someone else's ticket: 404.",
    tags: ['Tickets'],
  },
  placeOrder: {
    problems: ['conflict', 'unprocessable'],
    idempotencyKey: true,
    summary: 'Place an order',
    description:
      "Buys several tickets at once: 1 to 20 lines of `quantity` tickets each, at most 20 tickets in all, with the rules of `POST /tickets` for each. All or nothing: every ticket is checked and counted against capacity in one transaction, and a line that is sold out makes the whole order a 409 naming it (`errors[0].path` is `lines[1]`), with nothing sold. Each ticket has its own `ticketId` and `confirmationCode`; its QR code is at `GET /tickets/{ticketId}/qr`. `Idempotency-Key` works as for `POST /tickets`. With `MUSEUM_PAYMENTS=stripe`, a visitor's order is `pending`: its seats are held until `expiresAt` (`ORDER_HOLD_MINUTES`) and it is paid at `checkoutUrl`; it becomes `confirmed` when Stripe says it is paid, or `expired` (its seats given back) when the hold ends first. Staff orders are confirmed at once (paid at the desk).",
    tags: ['Orders'],
    examples: {
      request: {
        PlaceOrderRequestExample: {
          summary: 'A family: two general tickets and two for a special event',
          value: {
            email: 'todd@example.com',
            lines: [
              { ticketType: 'general', ticketDate: '2030-09-09', quantity: 2 },
              { ticketType: 'event', eventId: EVENT_ID, ticketDate: '2030-09-05', quantity: 2 },
            ],
          },
        },
      },
      response: {
        PlaceOrderResponseExample: { summary: 'The order and its four tickets', value: FAMILY_ORDER },
      },
    },
  },
  getOrder: {
    summary: 'Get an order',
    description:
      "An order of yours (staff: anyone's) with its tickets as they are now (`status`: `valid`, `used` once checked in with `checkedInAt`, or `cancelled`). Anyone else gets 404.",
    tags: ['Orders'],
    examples: {
      response: { GetOrderResponseExample: { summary: 'An order', value: FAMILY_ORDER } },
    },
  },
  resendTicket: {
    problems: ['conflict', 'tooManyRequests'],
    summary: "Send a ticket's mail again",
    description:
      "Queues a fresh copy of the mail of a ticket with its QR code and calendar entry: its order's mail (as `POST /orders/{orderId}/resend`), or its own for a ticket bought on its own (`POST /tickets`). Its owner or staff; anyone else gets 404. A cancelled ticket, or an order that is not confirmed: 409. At most 5 copies an hour, then 429 with `Retry-After`.",
    tags: ['Tickets'],
    examples: {
      response: {
        ResendTicketResponseExample: { summary: 'A copy queued', value: { status: 'pending', attempts: 0 } },
      },
    },
  },
  resendTickets: {
    problems: ['conflict', 'tooManyRequests'],
    summary: 'Send the tickets again',
    description:
      "Queues a fresh copy of the mail of a confirmed order's tickets (their QR codes and the calendar entry) to the order's `email`, and answers how it stands (`pending`; `GET /orders/{orderId}` follows it in `emailDelivery`). Its owner or staff; anyone else gets 404. An order that is not confirmed: 409. At most 5 copies an hour per order, then 429 with `Retry-After`. `lastError` is shown to staff only.",
    tags: ['Orders'],
    examples: {
      response: {
        ResendTicketsResponseExample: {
          summary: 'A copy queued',
          value: { status: 'pending', attempts: 0 },
        },
      },
    },
  },
  cancelOrder: {
    problems: ['conflict'],
    summary: 'Cancel an order',
    description:
      "Cancels every ticket of an order under the rules of `DELETE /tickets/{ticketId}`, all or none: a ticket checked in (or, for its owner, one whose day has come) makes it a 409 and nothing is cancelled. What was paid is refunded (`refundedAmount`); an order waiting for payment gives its seats back and its Checkout Session is expired. Cancelling a cancelled order answers 204 again. Someone else's order: 404.",
    tags: ['Orders'],
  },
  checkIn: {
    problems: ['conflict'],
    summary: 'Check a ticket in at the door',
    description:
      "A scanner at the door (a `gate` account, or staff) sends the confirmation code it read from the ticket's QR code. 201: admitted, the ticket with `status: used` and `checkedInAt`. 409: `already checked in at …` (when), `not valid today (…)` (the ticket's date; today is the museum's time zone), `cancelled`, or `not paid` (its order waits for payment). 404: no ticket has that code. Of any number of concurrent scans of one ticket, on any number of instances, exactly one is admitted.",
    tags: ['Check-ins'],
    examples: {
      request: {
        CheckInRequestExample: {
          summary: 'A code read from a QR code',
          value: { confirmationCode: 'ticket-general-e5e5c6-dce78' },
        },
      },
      response: {
        CheckInResponseExample: {
          summary: 'Admitted',
          value: {
            ...ticket('general', '382c0820-0530-4f4b-99af-13811ad0f17a', 'ticket-general-e5e5c6-dce78'),
            status: 'used',
            checkedInAt: '2030-09-09T09:12:03.000Z',
          },
        },
      },
    },
  },
};
