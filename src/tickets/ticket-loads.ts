// What the graph's edges read of tickets, batched per request (src/common/batch.ts, by dataloader).
import type { Principal } from '../accounts/authenticator.ts';
import { loadBatched } from '../common/batch.ts';
import { invalidField } from '../common/errors.ts';
import { type ListPage, offsetOf, type Page } from '../common/pagination.ts';
import type { Queryable } from '../db/sql.ts';
import { readsAnyTicket } from './ticket-view.ts';
import {
  GENERAL_REMAINING,
  TICKETS_BY_ID,
  TICKETS_OF_ACCOUNTS,
  type TicketView,
} from './tickets.views.queries.ts';

/** A ticket as getTicket shows it (null for anyone but its owner, staff or a gate), read in batches. */
export async function loadTicket(
  sql: Queryable,
  shared: Map<string, unknown>,
  viewer: Principal,
  ticketId: string,
): Promise<TicketView | null> {
  const ticket = await loadBatched(shared, 'tickets.byId', ticketId, async (ids) => {
    const rows = await sql.query(TICKETS_BY_ID, [ids, readsAnyTicket(viewer), viewer.id]);
    return new Map(rows.map((row) => [row.id, row.ticket]));
  });
  return ticket ?? null;
}

/** The ticket dates a list of an account's tickets covers; either end may be left out. */
export interface TicketRange {
  startDate?: string | null;
  endDate?: string | null;
}

/** Refuses a range whose end lies before its start. */
export function checkTicketRange({ startDate, endDate }: TicketRange): void {
  if (startDate && endDate && endDate < startDate) {
    throw invalidField('endDate', `must not be before startDate (${startDate})`);
  }
}

/** One page of an account's own tickets, ordered by ticket date then purchase time, and their total. */
export async function loadTicketsOf(
  sql: Queryable,
  shared: Map<string, unknown>,
  accountId: string,
  range: TicketRange,
  page: Page,
): Promise<ListPage<TicketView>> {
  checkTicketRange(range);
  const { startDate = null, endDate = null } = range;
  const name = `tickets.ofAccount/${startDate}/${endDate}/${page.page}/${page.limit}`;
  const loaded = await loadBatched(shared, name, accountId, async (ids) => {
    const rows = await sql.query(TICKETS_OF_ACCOUNTS, [ids, startDate, endDate, page.limit, offsetOf(page)]);
    return new Map(rows.map(({ accountId: id, ...tickets }) => [id, tickets]));
  });
  return loaded ?? { items: [], total: 0 };
}

/**
 * General admission tickets left on each of `dates` under `dailyCapacity`, in one statement: a page of
 * days reads them together with its days (src/hours/hours.graphql.ts), not one day at a time.
 */
export async function generalRemaining(
  sql: Queryable,
  dates: string[],
  dailyCapacity: number,
): Promise<Map<string, number>> {
  const rows = await sql.query(GENERAL_REMAINING, [dates, dailyCapacity]);
  return new Map(rows.map((row) => [row.date, row.remaining]));
}

/** General admission left on `date` under `dailyCapacity`, read with every other date the level asks for. */
export async function loadGeneralRemaining(
  sql: Queryable,
  shared: Map<string, unknown>,
  date: string,
  dailyCapacity: number,
): Promise<number> {
  const left = await loadBatched(shared, `tickets.generalRemaining/${dailyCapacity}`, date, (dates) =>
    generalRemaining(sql, dates, dailyCapacity),
  );
  return left ?? dailyCapacity;
}
