// The selections the route documents (routes.ts) share: what each REST answer holds, as GraphQL fields.

export const SPECIAL_EVENT_FIELDS = 'eventId name location eventDescription dates price capacity';
// One event's answer also has the prices it gives some categories, as they were sent (left out when none, so
// a client of the reference sees its event as the reference has it); a list leaves them to each event's.
export const EVENT_FIELDS = `${SPECIAL_EVENT_FIELDS} prices: ownPrices { category price }`;
export const WEBHOOK_SUBSCRIPTION_FIELDS = 'id url description createdAt';
export const WEBHOOK_DELIVERY_FIELDS =
  'id webhookId eventId status attempts lastResponseStatus nextAttemptAt createdAt deliveredAt';
export const REFERENCE_CONFIRMATION_FIELDS =
  'message ticketId ticketType ticketDate confirmationCode eventId eventName';
export const SALE_FIELDS = 'category price entryTime';
export const CONFIRMATION_FIELDS = `${REFERENCE_CONFIRMATION_FIELDS} ${SALE_FIELDS}`;
/** A cancelled ticket's canceller and reason (left out, as null, while it is not cancelled). */
export const CANCELLATION_FIELDS = 'cancelledBy cancellationReason';
export const TICKET_FIELDS = `${CONFIRMATION_FIELDS} status checkedInAt ${CANCELLATION_FIELDS}`;
/** One ticket as GET /tickets/{ticketId} answers it: its confirmation, and whether it still admits. */
export const TICKET_STATE_FIELDS = `${CONFIRMATION_FIELDS} status ${CANCELLATION_FIELDS}`;
/** Fields a document selects only when `$beyondReference` (see Route.beyondReference) is true. */
export const beyondReference = (fields: string) =>
  fields
    .split(' ')
    .map((field) => `${field} @include(if: $beyondReference)`)
    .join(' ');
/** Fields a document selects only when the museum takes payment (see Route.payments). */
export const whenPaying = (fields: string) =>
  fields
    .split(' ')
    .map((field) => `${field} @include(if: $payments)`)
    .join(' ');
export const DELIVERY_FIELDS = 'status attempts lastAttemptAt lastError';
export const ORDER_FIELDS = `orderId email createdAt ${whenPaying('status expiresAt checkoutUrl refundedAmount')}
  total currency tickets { ${TICKET_FIELDS} }`;
/** A visitor's ticket that waits for payment (MUSEUM_PAYMENTS=stripe); null, so left out, for any other. */
export const PAYMENT_FIELDS = 'orderId status checkoutUrl expiresAt';
export const PRICE_LIST_FIELDS = 'currency categories { category name generalAdmission }';
export const PRIVACY_REQUEST_FIELDS = `requestId kind requestedBy accountId requestedAt retentionDate
  counts { orders tickets mails idempotencyRecords accounts }`;
export const PERSONAL_DATA_FIELDS = `exportedAt email account { accountId name role createdAt } currency
  orders { orderId email status createdAt total ticketIds }
  tickets { ticketId orderId email ticketType ticketDate entryTime eventId eventName category price confirmationCode
    status createdAt checkedInAt cancelledAt cancelledBy cancellationReason }
  mails { mailId kind orderId ticketIds recipient status attempts createdAt lastAttemptAt sentAt }
  privacyRequests { ${PRIVACY_REQUEST_FIELDS} }`;
