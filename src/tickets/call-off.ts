import { DomainError } from '../common/errors.ts';
import { saidOrNull } from '../common/text.ts';
import type { Queryable } from '../db/sql.ts';
import { giveBack, NOTHING_GIVEN_BACK } from './cancellation.ts';
import {
  type GivenBack,
  type HeldTicket,
  HOLD_DAY_TICKETS,
  HOLD_EVENT_TICKETS,
} from './tickets.cancellation.queries.ts';

// The museum's own cancellations (issue 55): an event deleted, dates dropped from it, a day closed or its hours
// cut below a sold entry slot. The tickets still to be used are locked (in id order, as every cancellation
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
  const held = await tx.query(HOLD_DAY_TICKETS, [date, hours.timeOpen, hours.timeClose]);
  if (held.length > 0 && !options.cancelTickets) {
    const count = held.length === 1 ? '1 ticket' : `${held.length} tickets`;
    const what = hours.timeOpen === null ? 'Closing' : 'These hours on';
    const message = `${what} ${date} would cancel ${count} sold for it: send cancelTickets: true to call them off (each buyer is refunded and told)`;
    throw new DomainError('conflict', message, [{ path: 'date', message }]);
  }
  return callOff(tx, held, options.reason);
}

/**
 * The museum's cancellations as the events' and the hours' changes call them (they cannot import tickets): in
 * their transaction, then, once it committed, what is owed outside it is set going.
 */
export interface CallOff {
  eventTickets: typeof callOffEventTickets;
  dayTickets: typeof callOffDayTickets;
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
    committed(givenBack) {
      after.payments?.givenBack(givenBack);
      after.mail?.wake();
    },
  };
}
