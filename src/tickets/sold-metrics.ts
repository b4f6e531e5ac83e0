import type { AppDeps } from '../context.ts';
import type { TicketConfirmation } from './tickets.service.ts';

/** What a sale tells the metrics of each ticket sold (nothing while metrics are off). */
export const countSold = ({ metrics }: AppDeps) =>
  metrics
    ? (ticket: TicketConfirmation) => metrics.ticketSold(ticket.ticketType, ticket.category)
    : undefined;
