import { isoWeekday } from '../common/dates.ts';
import { DomainError } from '../common/errors.ts';
import { saidOrNull } from '../common/text.ts';
import type { Queryable } from '../db/sql.ts';
import { giveBack, NOTHING_GIVEN_BACK } from './cancellation.ts';
import {
  type GivenBack,
  type HeldTicket,
  HOLD_DAY_TICKETS,
  HOLD_EVENT_TICKETS,
  HOLD_WEEKDAY_TICKETS,
  PAUSE_SALES,
} from './tickets.cancellation.queries.ts';

// The museum's own cancellations (issue 55): an event deleted, dates dropped from it, a day or a weekday closed
// or its hours cut below a sold entry slot. The tickets still to be used are locked (in id order, as every cancellation
// locks them) and given back in the caller's transaction, as a visitor's cancellation gives them back, on the
// museum's account: each paid ticket refunded once, every buyer mailed once per order, with the reason.

/** At most this many characters of a reason are kept (and accepted). */
export const REASON_MAX_LENGTH = 500;

/** Gives back the tickets held on the museum's account, telling each buyer `reason`. */
const callOff = (tx: Queryable, held: HeldTicket[], reason: string | null | undefined): Promise<GivenBack> =>
  giveBack(tx, held, {
    by: 'museum',
    reason: saidOrNull(reason),
    pendingStatus: 'expired',
    mail: 'cancellation',
  });

/** Calls off the tickets of an event (locked for the transaction), of `dates` or of every date, from `today` on. */
export async function callOffEventTickets(
  tx: Queryable,
  eventId: string,
  dates: string[] | null,
  options: { reason: string | null | undefined; today: string },
): Promise<GivenBack> {
  if (dates?.length === 0) return NOTHING_GIVEN_BACK;
  return callOff(tx, await tx.query(HOLD_EVENT_TICKETS, [eventId, dates, options.today]), options.reason);
}

/** What a date's new hours are: closed (null times), or open from `timeOpen` to `timeClose` ('HH:MM'). */
export interface NewHours {
  timeOpen: string | null;
  timeClose: string | null;
}

/**
 * A date's hours changed (the change is not committed yet): the tickets they no longer admit are called off
 * when `cancelTickets` says so; else the change is refused (CONFLICT naming the date and how many tickets it
 * would cancel), and the caller's transaction rolls it back. A past date's tickets are left as they are.
 */
export async function callOffDayTickets(
  tx: Queryable,
  date: string,
  hours: NewHours,
  options: { cancelTickets: boolean; reason: string | null | undefined; today: string },
): Promise<GivenBack> {
  if (date < options.today) return NOTHING_GIVEN_BACK;
  await tx.query(PAUSE_SALES, []);
  const held = await tx.query(HOLD_DAY_TICKETS, [date, hours.timeOpen, hours.timeClose]);
  if (held.length > 0 && !options.cancelTickets) {
    const message = `${changing(hours)} ${date} would cancel ${tickets(held.length)} sold for it`;
    throw new DomainError('conflict', `${message}: ${CONFIRM}`, [{ path: 'date', message }]);
  }
  return callOff(tx, held, options.reason);
}

/** A weekday's new hours, with its ISO number (1 is Monday) and where the change named it (`days[0]`). */
export interface WeekdayChange extends NewHours {
  weekday: number;
  name: string;
  path: string;
}

/**
 * Weekdays' hours changed (not committed yet): as `callOffDayTickets`, for every date from `today` on that
 * follows its weekday's hours. Refused, the conflict names each weekday, its tickets and their dates.
 */
export async function callOffWeekdayTickets(
  tx: Queryable,
  changes: WeekdayChange[],
  options: { cancelTickets: boolean; reason: string | null | undefined; today: string },
): Promise<GivenBack> {
  if (changes.length === 0) return NOTHING_GIVEN_BACK;
  await tx.query(PAUSE_SALES, []);
  const held = await tx.query(HOLD_WEEKDAY_TICKETS, [
    changes.map((change) => change.weekday),
    changes.map((change) => change.timeOpen),
    changes.map((change) => change.timeClose),
    options.today,
  ]);
  if (held.length > 0 && !options.cancelTickets) {
    const datesByWeekday = new Map<number, string[]>();
    for (const { ticketDate } of held) {
      const weekday = isoWeekday(ticketDate);
      const dates = datesByWeekday.get(weekday);
      if (dates) dates.push(ticketDate);
      else datesByWeekday.set(weekday, [ticketDate]);
    }
    const refused = changes.flatMap((change) => {
      const sold = datesByWeekday.get(change.weekday);
      if (!sold) return [];
      const dates = [...new Set(sold)].sort();
      const on = dates.length === 1 ? dates[0] : `${dates.length} dates, ${dates[0]} to ${dates.at(-1)}`;
      const message = `${changing(change)} ${change.name} would cancel ${tickets(sold.length)} sold for ${on}`;
      return [{ path: change.path, message }];
    });
    throw new DomainError('conflict', `${refused.map((r) => r.message).join('; ')}: ${CONFIRM}`, refused);
  }
  return callOff(tx, held, options.reason);
}

const CONFIRM = 'send cancelTickets: true to call them off (each buyer is refunded and told)';
const changing = (hours: NewHours) => (hours.timeOpen === null ? 'Closing' : 'These hours on');
const tickets = (count: number) => (count === 1 ? '1 ticket' : `${count} tickets`);

/**
 * The museum's cancellations as the events' and the hours' changes call them (they cannot import tickets): in
 * their transaction, then, once it committed, what is owed outside it is set going.
 */
export interface CallOff {
  eventTickets: typeof callOffEventTickets;
  dayTickets: typeof callOffDayTickets;
  weekdayTickets: typeof callOffWeekdayTickets;
  /** The transaction committed: sessions to expire and refunds go to Stripe, the mails to their buyers. */
  committed(givenBack: GivenBack): void;
}

export function createCallOff(after: {
  payments?: { givenBack(result: GivenBack): void };
  mail?: { wake(): void };
}): CallOff {
  return {
    eventTickets: callOffEventTickets,
    dayTickets: callOffDayTickets,
    weekdayTickets: callOffWeekdayTickets,
    committed(givenBack) {
      after.payments?.givenBack(givenBack);
      after.mail?.wake();
    },
  };
}
