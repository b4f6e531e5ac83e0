// GraphQL documents and values the domain tests share. A test about one particular shape (aliases,
// fragments, what the document cache keeps) writes its own.

/** A well-formed event id that no event has. */
export const UNKNOWN_EVENT = '3be6453c-03eb-4357-ae5a-984a0e574a54';

export const EVENT_FIELDS = 'eventId name location eventDescription dates price';
export const EVENT_QUERY = `query($eventId: UUID!) { specialEvent(eventId: $eventId) { ${EVENT_FIELDS} } }`;
export const EVENTS_QUERY = `query($startDate: Date, $endDate: Date, $page: Int, $limit: Int) {
  specialEvents(startDate: $startDate, endDate: $endDate, page: $page, limit: $limit) { ${EVENT_FIELDS} } }`;
export const CREATE_EVENT = `mutation($input: CreateSpecialEventInput!) {
  createSpecialEvent(input: $input) { ${EVENT_FIELDS} } }`;
export const UPDATE_EVENT = `mutation($eventId: UUID!, $input: UpdateSpecialEventInput!) {
  updateSpecialEvent(eventId: $eventId, input: $input) { ${EVENT_FIELDS} } }`;
export const DELETE_EVENT = 'mutation($eventId: UUID!) { deleteSpecialEvent(eventId: $eventId) }';

export const HOURS_QUERY = `query($startDate: Date, $page: Int, $limit: Int) {
  museumHours(startDate: $startDate, page: $page, limit: $limit) { date timeOpen timeClose } }`;

export const BUY_TICKETS = `mutation($input: BuyMuseumTicketsInput!) {
  buyMuseumTickets(input: $input) { message ticketId ticketType ticketDate confirmationCode eventId eventName } }`;
