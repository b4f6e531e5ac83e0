// What the graph's edges read of tickets, batched per request (src/common/batch.ts, by dataloader).
import type { Principal } from '../accounts/authenticator.ts';
import { loadBatched } from '../common/batch.ts';
import { invalidField } from '../common/errors.ts';
import { type ListPage, offsetOf, type Page } from '../common/pagination.ts';
import { type Queryable, statement } from '../db/sql.ts';
import { GENERAL_ADMISSION } from './ticket-sales.entity.ts';
import { readsAnyTicket, TICKET_VIEW_JSON, type TicketView } from './ticket-view.ts';

// Owner, staff or gate ($2) only, as ticket_by_id.
const TICKETS_BY_ID = statement<
  { id: string; ticket: TicketView },
  [ticketIds: string[], anyTicket: boolean, viewerId: string]
>(
  'tickets_by_id',
  `select t.id, ${TICKET_VIEW_JSON} as ticket
   from ticket t left join special_event e on e.id = t.event_id
   where t.id = any($1::uuid[]) and ($2::boolean or t.account_id = $3::uuid)`,
  { mayBeStale: true },
);

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

// The tickets of each account of $1 with a date in [$2, $3] (either end null: open), one page ($4, $5) of
// them by ticket date, then purchase time, and how many there are over all pages.
const TICKETS_OF_ACCOUNTS = statement<
  { accountId: string } & ListPage<TicketView>,
  [accountIds: string[], startDate: string | null, endDate: string | null, limit: number, offset: number]
>(
  'tickets_of_accounts',
  `select a.id as "accountId",
          (select count(*)::int from ticket t
           where t.account_id = a.id
             and ($2::date is null or t.ticket_date >= $2::date)
             and ($3::date is null or t.ticket_date <= $3::date)) as total,
          coalesce((
            select json_agg(page.ticket order by page.ticket_date, page.created_at, page.id)
            from (
              select ${TICKET_VIEW_JSON} as ticket, t.ticket_date, t.created_at, t.id
              from ticket t left join special_event e on e.id = t.event_id
              where t.account_id = a.id
                and ($2::date is null or t.ticket_date >= $2::date)
                and ($3::date is null or t.ticket_date <= $3::date)
              order by t.ticket_date, t.created_at, t.id
              limit $4::int offset $5::bigint
            ) page
          ), '[]') as items
   from unnest($1::uuid[]) as a(id)`,
  { mayBeStale: true },
);

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

// General admission left on each day of $1 under a daily capacity of $2: the counter purchases keep, or before
// the first sale under the capacity, the general tickets not cancelled, as a purchase would count them.
const GENERAL_REMAINING = statement<
  { date: string; remaining: number },
  [dates: string[], dailyCapacity: number]
>(
  'general_remaining',
  `select to_char(days.day, 'YYYY-MM-DD') as date,
          greatest($2::int - coalesce(
            (select c.sold from ticket_sales c where c.scope = '${GENERAL_ADMISSION}' and c.date = days.day),
            (select count(*)::int from ticket t
             where t.ticket_type = 'general' and t.ticket_date = days.day and t.cancelled_at is null)), 0) as remaining
   from unnest($1::date[]) as days(day)`,
  { mayBeStale: true },
);

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
