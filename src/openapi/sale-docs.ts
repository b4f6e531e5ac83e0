// What the OpenAPI document says of the operations of a sale (the price list, timed entry, the sales report),
// by operationId, as route-docs.ts does for the rest; document.ts reads all three.

import type { RouteDocs } from './route-docs.ts';

const PRICE_LIST = {
  currency: 'EUR',
  categories: [
    { category: 'adult', name: 'Adult', generalAdmission: 20 },
    { category: 'reduced', name: 'Reduced', generalAdmission: 14 },
    { category: 'child', name: 'Child', generalAdmission: 8 },
  ],
};

export const saleDocs: Record<string, RouteDocs> = {
  getPriceList: {
    summary: 'Get the price list',
    description:
      "Every visitor category with what its general admission costs, in the museum's `currency` (ISO 4217), in the order staff listed them. Any account. A special event may charge a category its own price: its `prices`, at `GET /special-events/{eventId}`.",
    tags: ['Prices'],
    responseSchema: 'PriceList',
    examples: {
      response: { GetPriceListResponseExample: { summary: 'The default list', value: PRICE_LIST } },
    },
  },
  setPriceList: {
    summary: 'Replace the price list',
    description:
      "Staff only. The whole new list: 1 to 20 categories (`category`: lowercase letters, digits and `-`, each once; `adult` among them, the category of a purchase that names none), each with a `name` and the price of its `generalAdmission` (0 to 1 000 000, at most 2 decimals). Tickets sold keep the category and price they were sold at. A category that an event still gives a price of its own cannot be left out (409 naming `categories`): change that event's `prices` first. Answers the new list.",
    problems: ['conflict'],
    tags: ['Prices'],
    responseSchema: 'PriceList',
    examples: {
      request: {
        SetPriceListRequestExample: {
          summary: 'Adults, students and children under 6 for free',
          value: {
            categories: [
              { category: 'adult', name: 'Adult', generalAdmission: 22.5 },
              { category: 'student', name: 'Student', generalAdmission: 12 },
              { category: 'under-6', name: 'Child under 6', generalAdmission: 0 },
            ],
          },
        },
      },
      response: { SetPriceListResponseExample: { summary: 'The new list', value: PRICE_LIST } },
    },
  },
  listEntrySlots: {
    summary: 'List the entry slots of a day',
    description:
      "The timed-entry slots of `date` (default today, the museum's time zone), each with its `startTime`, `endTime`, `capacity` and the tickets it has `remaining`; `[]` when the museum is closed that day or has no timed entry. On a day with slots, a general ticket (`POST /tickets`, or a line of `POST /orders`) needs an `entryTime`: the `startTime` of one of them. Staff set slots over GraphQL (`setEntrySlots`, `setDayEntrySlots`).",
    tags: ['Operations'],
    responseSchema: 'EntrySlots',
    examples: {
      response: {
        ListEntrySlotsResponseExample: {
          summary: 'Hourly slots of 40 tickets',
          value: [
            { startTime: '10:00', endTime: '11:00', capacity: 40, remaining: 0 },
            { startTime: '11:00', endTime: '12:00', capacity: 40, remaining: 12 },
            { startTime: '12:00', endTime: '13:00', capacity: 40, remaining: 40 },
          ],
        },
      },
    },
  },
  getSalesReport: {
    summary: 'Get the sales report',
    description:
      "Staff only. One row per visit date, ticket type, event and visitor category of [`startDate`, `endDate`] (both required, at most 366 days): tickets `sold` (those cancelled since included), `cancelled`, `checkedIn`, and the `revenue` of those not cancelled at the prices they were sold at, in the report's `currency`. With `Accept: text/csv`, the same rows as CSV (RFC 4180, a header line, the currency on each row) for a spreadsheet.",
    tags: ['Reports'],
    responseSchema: 'SalesReport',
    examples: {
      response: {
        GetSalesReportResponseExample: {
          summary: 'One day',
          value: {
            currency: 'EUR',
            startDate: '2030-09-09',
            endDate: '2030-09-09',
            rows: [
              {
                date: '2030-09-09',
                ticketType: 'general',
                category: 'adult',
                sold: 120,
                cancelled: 3,
                checkedIn: 101,
                revenue: 2340,
              },
              {
                date: '2030-09-09',
                ticketType: 'event',
                eventId: 'dad4bce8-f5cb-4078-a211-995864315e39',
                eventName: 'Mermaid Treasure Identification and Analysis',
                category: 'child',
                sold: 12,
                cancelled: 0,
                checkedIn: 11,
                revenue: 180,
              },
            ],
          },
        },
      },
    },
  },
};
