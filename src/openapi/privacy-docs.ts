// What the OpenAPI document says of the operations on personal data (src/privacy/), by operationId, as
// route-docs.ts does for the rest; document.ts reads them all.

import type { RouteDocs } from './route-docs.ts';

const ERASURE = {
  requestId: '5b0e3f7a-2c4d-4e8f-9a1b-3c5d7e9f1a2b',
  kind: 'erasure',
  requestedBy: 'staff',
  accountId: '9f1c2b3a-4d5e-4f60-8a7b-1c2d3e4f5a6b',
  requestedAt: '2030-09-12T10:00:00.000Z',
  counts: { orders: 1, tickets: 3, mails: 2, idempotencyRecords: 0, accounts: 0 },
};

export const privacyDocs: Record<string, RouteDocs> = {
  getMyData: {
    summary: 'Export your data',
    description:
      'Everything the museum holds about your account (GDPR articles 15 and 20): the account, its orders and tickets with their state, prices and check-ins, the mails sent about them and how they fared, and earlier exports and erasures. The same document as the GraphQL query `myData`. Recorded in the privacy record.',
    tags: ['Privacy'],
    responseSchema: 'PersonalData',
  },
  deleteMyAccount: {
    problems: ['conflict'],
    summary: 'Delete your account',
    description:
      "Deletes your account and erases the addresses of its orders and tickets, its mails' recipients and its stored answers, in one transaction; the tickets stay (valid ones still admit) and so do the sales figures, but nothing more is mailed. The credentials stop working at once. The last staff account cannot be deleted (409). Recorded in the privacy record.",
    tags: ['Privacy'],
  },
  exportBuyerData: {
    summary: "Export a buyer's data",
    description:
      'Everything held about an address (staff only): orders and tickets bought with it (state, prices, check-ins), the mails sent to it and how they fared, and earlier requests about it. The address is matched without regard to case. The same document as the GraphQL query `buyerData`. Recorded in the privacy record, under a keyed hash of the address.',
    tags: ['Privacy'],
    responseSchema: 'PersonalData',
    examples: {
      request: {
        ExportBuyerDataRequestExample: { summary: 'A buyer', value: { email: 'todd@example.com' } },
      },
    },
  },
  eraseBuyerData: {
    summary: "Erase a buyer's data",
    description:
      'Erases an address everywhere it is held (staff only): tickets, orders, the mail outbox (a mail not sent yet never will be) and stored `Idempotency-Key` answers, in one transaction. Tickets, amounts, check-ins and the sales report stay as they were, and valid tickets still admit. Answers the record of the erasure with what it counted; an address never used, or already erased, counts zeros.',
    tags: ['Privacy'],
    responseSchema: 'PrivacyRequest',
    examples: {
      request: { EraseBuyerDataRequestExample: { summary: 'A buyer', value: { email: 'todd@example.com' } } },
      response: { EraseBuyerDataResponseExample: { summary: 'What was erased', value: ERASURE } },
    },
  },
  listPrivacyRequests: {
    summary: 'List privacy requests',
    description:
      'The record of every export and erasure, newest first (staff only): who asked (by account id), when, of which kind, and what it counted — never the address. With `email`, the requests about that address (found by its keyed hash); a retention run has its day and no subject.',
    tags: ['Privacy'],
  },
};
