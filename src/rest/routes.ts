// The REST surface of the Redocly Museum API 1.2.1, one row per operation. Each row names its GraphQL
// operation; adapter.ts turns path and query parameters and the JSON body into its variables and the
// root field's value into the response. Nothing else happens here: rules live in the domain folders, and
// what the OpenAPI document says of each operation (prose, tags, examples) in src/openapi/route-docs.ts.

import { salesCsv } from '../reports/sales-csv.ts';

const SPECIAL_EVENT_FIELDS = 'eventId name location eventDescription dates price capacity';
// One event's answer also has the prices it gives some categories, as they were sent (left out when none, so
// a client of the reference sees its event as the reference has it); a list leaves them to each event's.
const EVENT_FIELDS = `${SPECIAL_EVENT_FIELDS} prices: ownPrices { category price }`;
const WEBHOOK_SUBSCRIPTION_FIELDS = 'id url description createdAt';
const WEBHOOK_DELIVERY_FIELDS =
  'id webhookId eventId status attempts lastResponseStatus nextAttemptAt createdAt deliveredAt';
const REFERENCE_CONFIRMATION_FIELDS =
  'message ticketId ticketType ticketDate confirmationCode eventId eventName';
const SALE_FIELDS = 'category price entryTime';
const CONFIRMATION_FIELDS = `${REFERENCE_CONFIRMATION_FIELDS} ${SALE_FIELDS}`;
const TICKET_FIELDS = `${CONFIRMATION_FIELDS} status checkedInAt`;
/** Fields a document selects only when `$beyondReference` (see Route.beyondReference) is true. */
const beyondReference = (fields: string) =>
  fields
    .split(' ')
    .map((field) => `${field} @include(if: $beyondReference)`)
    .join(' ');
/** Fields a document selects only when the museum takes payment (see Route.payments). */
const whenPaying = (fields: string) =>
  fields
    .split(' ')
    .map((field) => `${field} @include(if: $payments)`)
    .join(' ');
const DELIVERY_FIELDS = 'status attempts lastAttemptAt lastError';
const ORDER_FIELDS = `orderId email createdAt ${whenPaying('status expiresAt checkoutUrl refundedAmount')}
  total currency tickets { ${TICKET_FIELDS} }`;
/** A visitor's ticket that waits for payment (MUSEUM_PAYMENTS=stripe); null, so left out, for any other. */
const PAYMENT_FIELDS = 'orderId status checkoutUrl expiresAt';
const PRICE_LIST_FIELDS = 'currency categories { category name generalAdmission }';
const PRIVACY_REQUEST_FIELDS = `requestId kind requestedBy accountId requestedAt retentionDate
  counts { orders tickets mails idempotencyRecords accounts }`;
const PERSONAL_DATA_FIELDS = `exportedAt email account { accountId name role createdAt } currency
  orders { orderId email status createdAt total ticketIds }
  tickets { ticketId orderId email ticketType ticketDate entryTime eventId eventName category price confirmationCode
    status createdAt checkedInAt cancelledAt }
  mails { mailId kind orderId ticketIds recipient status attempts createdAt lastAttemptAt sentAt }
  privacyRequests { ${PRIVACY_REQUEST_FIELDS} }`;

export interface Route {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A URLPattern pathname; its named groups become variables of the same name. */
  path: string;
  /**
   * Query parameters the operation reads, each becoming the variable of the same name (an integer where the
   * document declares the variable `Int`).
   */
  query?: string[];
  /** The JSON request body becomes the `input` variable. */
  body?: true;
  /**
   * The JSON request body, exactly as it came, becomes this String variable: a signed webhook's signature
   * covers its bytes, not what parsing them makes of it.
   */
  rawBody?: string;
  /** Request headers the operation reads, by variable name (`ifMatch: 'if-match'`), when sent. */
  headers?: Record<string, string>;
  /**
   * The root field's `version` is the resource's entity tag: sent as `ETag` (and compared with
   * `If-None-Match`) instead of a digest of the body, and left out of the body.
   */
  etag?: 'version';
  document: string;
  status: 200 | 201 | 202 | 204;
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
   * The body fields beyond the reference's: the document's `$beyondReference: Boolean!` is true when the body
   * gives one of them, and the fields the reference does not answer are selected only then
   * (`@include(if: $beyondReference)`), so that a client of the reference gets exactly the reference's answer.
   */
  beyondReference?: string[];
  /**
   * The document's `$payments: Boolean!` is whether the museum takes payment (MUSEUM_PAYMENTS is not `none`):
   * an order's payment fields are selected only then, so that a museum without payments answers as before.
   */
  payments?: true;
  /** One more media type the JSON answer can be sent in, when `Accept` prefers it (a report as CSV). */
  alternative?: {
    contentType: string;
    render: (result: Record<string, unknown>, variables: Record<string, unknown>) => string;
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
}

const page = ['page', 'limit'];

export const routes: Route[] = [
  {
    operationId: 'getMuseumHours',
    method: 'GET',
    path: '/museum-hours',
    query: ['startDate', ...page],
    document: `query getMuseumHours($startDate: Date, $page: Int, $limit: Int) {
      museumHours(startDate: $startDate, page: $page, limit: $limit) { date timeOpen timeClose remaining } }`,
    status: 200,
    paged: true,
  },
  {
    operationId: 'listSpecialEvents',
    method: 'GET',
    path: '/special-events',
    query: ['startDate', 'endDate', ...page],
    document: `query listSpecialEvents($startDate: Date, $endDate: Date, $page: Int, $limit: Int) {
      specialEventPage(startDate: $startDate, endDate: $endDate, page: $page, limit: $limit) {
        items { ${SPECIAL_EVENT_FIELDS} } total } }`,
    status: 200,
    paged: 'items',
  },
  {
    operationId: 'createSpecialEvent',
    method: 'POST',
    path: '/special-events',
    body: true,
    document: `mutation createSpecialEvent($input: CreateSpecialEventInput!) {
      createSpecialEvent(input: $input) { ${EVENT_FIELDS} version } }`,
    etag: 'version',
    status: 201,
    location: (event) => `/special-events/${event.eventId}`,
  },
  {
    operationId: 'getSpecialEvent',
    method: 'GET',
    path: '/special-events/:eventId',
    document: `query getSpecialEvent($eventId: UUID!) { specialEvent(eventId: $eventId) { ${EVENT_FIELDS} version } }`,
    etag: 'version',
    status: 200,
    notFound: 'There is no special event with that eventId',
  },
  {
    operationId: 'updateSpecialEvent',
    method: 'PATCH',
    path: '/special-events/:eventId',
    body: true,
    headers: { ifMatch: 'if-match' },
    document: `mutation updateSpecialEvent($eventId: UUID!, $input: UpdateSpecialEventInput!, $ifMatch: String) {
      updateSpecialEvent(eventId: $eventId, input: $input, ifMatch: $ifMatch) { ${EVENT_FIELDS} version } }`,
    etag: 'version',
    status: 200,
    notFound: 'There is no special event with that eventId',
  },
  {
    operationId: 'deleteSpecialEvent',
    method: 'DELETE',
    path: '/special-events/:eventId',
    headers: { ifMatch: 'if-match' },
    document: `mutation deleteSpecialEvent($eventId: UUID!, $ifMatch: String) {
      deleteSpecialEvent(eventId: $eventId, ifMatch: $ifMatch) }`,
    status: 204,
    notFound: 'There is no special event with that eventId',
  },
  {
    operationId: 'getSpecialEventAvailability',
    method: 'GET',
    path: '/special-events/:eventId/availability',
    document: `query getSpecialEventAvailability($eventId: UUID!) {
      specialEventAvailability(eventId: $eventId) { date capacity remaining sold } }`,
    status: 200,
    notFound: 'There is no special event with that eventId',
  },
  {
    operationId: 'buyMuseumTickets',
    method: 'POST',
    path: '/tickets',
    body: true,
    document: `mutation buyMuseumTickets($input: BuyMuseumTicketsInput!, $beyondReference: Boolean!) {
      buyMuseumTickets(input: $input) {
        ${REFERENCE_CONFIRMATION_FIELDS} ${beyondReference(SALE_FIELDS)} ${PAYMENT_FIELDS} } }`,
    beyondReference: ['category', 'entryTime'],
    status: 201,
    location: (ticket) => `/tickets/${ticket.ticketId}`,
    cacheControl: 'no-store',
  },
  {
    operationId: 'getTicket',
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
    method: 'GET',
    path: '/tickets/:ticketId/qr',
    document: `query getTicketCode($ticketId: UUID!) { ticket(ticketId: $ticketId) { admissionCode } }`,
    status: 200,
    notFound: 'There is no ticket with that ticketId',
    cacheControl: 'no-store',
    produces: {
      contentType: 'image/png',
      render: async (ticket) => {
        // The QR encoder is loaded when the first code is asked for.
        const { admissionCodePng } = await import('../common/qr-code.ts');
        return new Uint8Array(await admissionCodePng(String(ticket.admissionCode)));
      },
    },
  },
  {
    operationId: 'resendTicket',
    method: 'POST',
    path: '/tickets/:ticketId/resend',
    document: `mutation resendTicket($ticketId: UUID!) { resendTicket(ticketId: $ticketId) { ${DELIVERY_FIELDS} } }`,
    status: 202,
  },
  {
    operationId: 'cancelTicket',
    method: 'DELETE',
    path: '/tickets/:ticketId',
    document: 'mutation cancelTicket($ticketId: UUID!) { cancelTicket(ticketId: $ticketId) }',
    status: 204,
  },
  {
    operationId: 'placeOrder',
    method: 'POST',
    path: '/orders',
    body: true,
    document: `mutation placeOrder($input: PlaceOrderInput!, $payments: Boolean!) {
      placeOrder(input: $input) { ${ORDER_FIELDS} } }`,
    payments: true,
    status: 201,
    location: (order) => `/orders/${order.orderId}`,
  },
  {
    operationId: 'getOrder',
    method: 'GET',
    path: '/orders/:orderId',
    document: `query getOrder($orderId: UUID!, $payments: Boolean!) {
      order(orderId: $orderId) { ${ORDER_FIELDS} emailDelivery { ${DELIVERY_FIELDS} } } }`,
    payments: true,
    status: 200,
    notFound: 'There is no order with that orderId',
    // Its tickets' codes admit their holders: no cache keeps it.
    cacheControl: 'no-store',
  },
  {
    operationId: 'resendTickets',
    method: 'POST',
    path: '/orders/:orderId/resend',
    document: `mutation resendTickets($orderId: UUID!) { resendTickets(orderId: $orderId) { ${DELIVERY_FIELDS} } }`,
    status: 202,
  },
  {
    operationId: 'cancelOrder',
    method: 'DELETE',
    path: '/orders/:orderId',
    document: 'mutation cancelOrder($orderId: UUID!) { cancelOrder(orderId: $orderId) }',
    status: 204,
  },
  {
    operationId: 'checkIn',
    method: 'POST',
    path: '/check-ins',
    body: true,
    document: `mutation checkIn($input: CheckInInput!) { checkIn(input: $input) { ${TICKET_FIELDS} } }`,
    status: 201,
    location: (ticket) => `/tickets/${ticket.ticketId}`,
  },
  {
    operationId: 'listMyTickets',
    method: 'GET',
    path: '/tickets',
    query: ['startDate', 'endDate', ...page],
    document: `query listMyTickets($startDate: Date, $endDate: Date, $page: Int, $limit: Int) {
      myTickets(startDate: $startDate, endDate: $endDate, page: $page, limit: $limit) {
        items { ${TICKET_FIELDS} } total } }`,
    status: 200,
    paged: 'items',
    cacheControl: 'no-store',
  },
  {
    operationId: 'getPriceList',
    method: 'GET',
    path: '/prices',
    document: `query getPriceList { priceList { ${PRICE_LIST_FIELDS} } }`,
    status: 200,
  },
  {
    operationId: 'setPriceList',
    method: 'PUT',
    path: '/prices',
    body: true,
    document: `mutation setPriceList($input: SetPriceListInput!) { setPriceList(input: $input) { ${PRICE_LIST_FIELDS} } }`,
    status: 200,
  },
  {
    operationId: 'listEntrySlots',
    method: 'GET',
    path: '/entry-slots',
    query: ['date'],
    document: `query listEntrySlots($date: Date) { entrySlots(date: $date) { startTime endTime capacity remaining } }`,
    status: 200,
  },
  {
    operationId: 'getSalesReport',
    method: 'GET',
    path: '/reports/sales',
    query: ['startDate', 'endDate'],
    document: `query getSalesReport($startDate: Date!, $endDate: Date!, $payments: Boolean!) {
      sales(startDate: $startDate, endDate: $endDate) {
        currency startDate endDate
        rows { date ticketType eventId eventName category sold cancelled ${whenPaying('refunded')} checkedIn revenue } } }`,
    status: 200,
    payments: true,
    alternative: { contentType: 'text/csv; charset=utf-8', render: salesCsv },
  },
  {
    operationId: 'receiveStripeEvent',
    method: 'POST',
    path: '/payments/stripe',
    rawBody: 'payload',
    headers: { signature: 'stripe-signature' },
    document: `mutation receiveStripeEvent($payload: String!, $signature: String) {
      receiveStripeEvent(payload: $payload, signature: $signature) { received outcome } }`,
    status: 200,
  },
  {
    operationId: 'createWebhookSubscription',
    method: 'POST',
    path: '/webhook-subscriptions',
    body: true,
    document: `mutation createWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
      createWebhookSubscription(input: $input) { ${WEBHOOK_SUBSCRIPTION_FIELDS} secret } }`,
    status: 201,
    location: (subscription) => `/webhook-subscriptions/${subscription.id}`,
  },
  {
    operationId: 'listWebhookSubscriptions',
    method: 'GET',
    path: '/webhook-subscriptions',
    query: page,
    document: `query listWebhookSubscriptions($page: Int, $limit: Int) {
      webhookSubscriptions(page: $page, limit: $limit) { items { ${WEBHOOK_SUBSCRIPTION_FIELDS} } total } }`,
    status: 200,
    paged: 'items',
  },
  {
    operationId: 'getWebhookSubscription',
    method: 'GET',
    path: '/webhook-subscriptions/:subscriptionId',
    document: `query getWebhookSubscription($subscriptionId: UUID!) {
      webhookSubscription(id: $subscriptionId) { ${WEBHOOK_SUBSCRIPTION_FIELDS} } }`,
    status: 200,
    notFound: 'There is no webhook subscription with that subscriptionId',
  },
  {
    operationId: 'deleteWebhookSubscription',
    method: 'DELETE',
    path: '/webhook-subscriptions/:subscriptionId',
    document: `mutation deleteWebhookSubscription($subscriptionId: UUID!) {
      deleteWebhookSubscription(id: $subscriptionId) }`,
    status: 204,
    notFound: 'There is no webhook subscription with that subscriptionId',
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhook-subscriptions/:subscriptionId/deliveries',
    query: page,
    document: `query listWebhookDeliveries($subscriptionId: UUID!, $page: Int, $limit: Int) {
      webhookDeliveries(subscriptionId: $subscriptionId, page: $page, limit: $limit) {
        items { ${WEBHOOK_DELIVERY_FIELDS} } total } }`,
    status: 200,
    paged: 'items',
    notFound: 'There is no webhook subscription with that subscriptionId',
  },
  {
    operationId: 'getMyData',
    method: 'GET',
    path: '/me/data',
    document: `query getMyData { myData { ${PERSONAL_DATA_FIELDS} } }`,
    status: 200,
    cacheControl: 'no-store',
  },
  {
    operationId: 'deleteMyAccount',
    method: 'DELETE',
    path: '/me',
    document: 'mutation deleteMyAccount { deleteMyAccount { requestId } }',
    status: 204,
  },
  {
    operationId: 'exportBuyerData',
    method: 'POST',
    path: '/privacy/exports',
    body: true,
    document: `query exportBuyerData($input: BuyerInput!) { buyerData(input: $input) { ${PERSONAL_DATA_FIELDS} } }`,
    status: 200,
  },
  {
    operationId: 'eraseBuyerData',
    method: 'POST',
    path: '/privacy/erasures',
    body: true,
    document: `mutation eraseBuyerData($input: BuyerInput!) { eraseBuyerData(input: $input) { ${PRIVACY_REQUEST_FIELDS} } }`,
    status: 200,
  },
  {
    operationId: 'listPrivacyRequests',
    method: 'GET',
    path: '/privacy/requests',
    query: ['email', ...page],
    document: `query listPrivacyRequests($email: EmailAddress, $page: Int, $limit: Int) {
      privacyRequests(email: $email, page: $page, limit: $limit) { items { ${PRIVACY_REQUEST_FIELDS} } total } }`,
    status: 200,
    paged: 'items',
    cacheControl: 'no-store',
  },
];
