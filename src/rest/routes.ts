// The REST surface of the Redocly Museum API 1.2.1, one row per operation, each naming its GraphQL operation:
// adapter.ts turns path and query parameters and the JSON body into its variables and the root field's value
// into the response. Rules live in the domains; each operation's OpenAPI prose, in openapi/route-docs.ts.

import { salesCsv } from '../reports/sales-csv.ts';
import { PAGE_QUERY, type Route } from './route.ts';
import {
  beyondReference,
  DELIVERY_FIELDS,
  EVENT_FIELDS,
  ORDER_FIELDS,
  PAYMENT_FIELDS,
  PERSONAL_DATA_FIELDS,
  PRICE_LIST_FIELDS,
  PRIVACY_REQUEST_FIELDS,
  REFERENCE_CONFIRMATION_FIELDS,
  SALE_FIELDS,
  SPECIAL_EVENT_FIELDS,
  TICKET_FIELDS,
  TICKET_STATE_FIELDS,
  WEBHOOK_DELIVERY_FIELDS,
  WEBHOOK_SUBSCRIPTION_FIELDS,
  whenPaying,
} from './selections.ts';

export const routes: Route[] = [
  {
    operationId: 'getMuseumHours',
    method: 'GET',
    path: '/museum-hours',
    query: ['startDate', ...PAGE_QUERY],
    document: `query getMuseumHours($startDate: Date, $page: Int, $limit: Int) {
      museumHours(startDate: $startDate, page: $page, limit: $limit) { date timeOpen timeClose remaining } }`,
    status: 200,
    paged: true,
  },
  {
    operationId: 'listSpecialEvents',
    method: 'GET',
    path: '/special-events',
    query: ['startDate', 'endDate', ...PAGE_QUERY],
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
    query: ['reason'],
    headers: { ifMatch: 'if-match' },
    document: `mutation deleteSpecialEvent($eventId: UUID!, $ifMatch: String, $reason: String) {
      deleteSpecialEvent(eventId: $eventId, ifMatch: $ifMatch, reason: $reason) }`,
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
    document: `query getTicket($ticketId: UUID!) { ticket(ticketId: $ticketId) { ${TICKET_STATE_FIELDS} } }`,
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
    query: ['startDate', 'endDate', ...PAGE_QUERY],
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
    query: PAGE_QUERY,
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
    query: PAGE_QUERY,
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
    query: ['email', ...PAGE_QUERY],
    document: `query listPrivacyRequests($email: EmailAddress, $page: Int, $limit: Int) {
      privacyRequests(email: $email, page: $page, limit: $limit) { items { ${PRIVACY_REQUEST_FIELDS} } total } }`,
    status: 200,
    paged: 'items',
    cacheControl: 'no-store',
  },
];
