import type { Principal } from '../accounts/authenticator.ts';
import type { MuseumTime } from '../common/dates.ts';
import { DomainError, type ErrorKind } from '../common/errors.ts';
import type { Queryable } from '../db/sql.ts';
import { minutesOf, timeOf } from '../hours/entry-slots.rules.ts';
import type { Logger } from '../logger.ts';
import { toTicketView } from '../tickets/ticket-view.ts';
import type { TicketView } from '../tickets/tickets.views.queries.ts';
import { CHECK_IN, TICKET_BY_CODE, type TicketRow } from './check-ins.queries.ts';
import type { CheckInOutcome } from './check-ins.rules.ts';

/** When a scan happens (the museum's date and minute of the day), and the grace around a timed ticket's slot. */
export interface ScanTime extends MuseumTime {
  graceMinutes: number;
}

export type CheckInResult =
  | { outcome: 'admitted'; ticket: TicketView }
  | { outcome: Exclude<CheckInOutcome, 'admitted'>; ticket: TicketView | null; refusal: DomainError };

const refused = (
  outcome: Exclude<CheckInOutcome, 'admitted' | 'unknown'>,
  row: TicketRow,
  message: string,
  kind: ErrorKind = 'conflict',
): CheckInResult => ({
  outcome,
  ticket: toTicketView(row),
  refusal: new DomainError(kind, message, [{ path: 'confirmationCode', message }]),
});

/** Why a ticket as read now is not admitted, or null when nothing in it stands in the way. */
function refusalOf(row: TicketRow, at: ScanTime): CheckInResult | null {
  const { today } = at;
  if (row.checkedInAt !== null)
    return refused('already_checked_in', row, `already checked in at ${row.checkedInAt}`);
  if (row.status === 'cancelled')
    return refused(
      'cancelled',
      row,
      row.cancelledBy === 'museum'
        ? `cancelled by the museum: ${row.cancellationReason ?? 'the visit was called off'}; the ticket admits no one`
        : 'cancelled: this ticket was cancelled and admits no one',
    );
  if (row.status === 'pending')
    return refused(
      'not_paid',
      row,
      'not paid: its order waits for payment, and admits no one until it is paid',
    );
  if (row.ticketDate !== today)
    return refused('not_valid_today', row, `not valid today (${today}): the ticket is for ${row.ticketDate}`);
  if (row.entryTime !== null && row.entryEnd !== null) {
    const slot = `its entry slot is ${row.entryTime}–${row.entryEnd}`;
    const from = minutesOf(row.entryTime) - at.graceMinutes;
    const until = minutesOf(row.entryEnd) + at.graceMinutes;
    if (at.minuteOfDay < from)
      return refused('too_early', row, `too early: ${slot}, admitted from ${timeOf(from)}`);
    if (at.minuteOfDay > until)
      return refused('too_late', row, `too late: ${slot}, admitted until ${timeOf(until)}`);
  }
  return null;
}

const UNKNOWN: CheckInResult = {
  outcome: 'unknown',
  ticket: null,
  refusal: new DomainError('notFound', 'There is no ticket with that confirmationCode', [
    { path: 'confirmationCode', message: 'is not the code of any ticket' },
  ]),
};

/**
 * Admits the ticket with this confirmation code if it is valid today (the museum's), not cancelled and not
 * yet checked in. Exactly one of concurrent scans is admitted; the others learn why not (it is checked in
 * now). A refusal is a result, not an error, so that the caller can count and log it first.
 */
export async function checkIn(
  sql: Queryable,
  confirmationCode: string,
  at: ScanTime,
  attempt = 1,
): Promise<CheckInResult> {
  const [row] = await sql.query(CHECK_IN, [confirmationCode, at.today, at.minuteOfDay, at.graceMinutes]);
  if (!row) return UNKNOWN;
  const { admittedAt, ...ticket } = row;
  if (admittedAt !== null)
    return {
      outcome: 'admitted',
      ticket: toTicketView({ ...ticket, status: 'used', checkedInAt: admittedAt }),
    };
  const refusal = refusalOf(ticket, at);
  if (refusal) return refusal;
  // Not admitted, though the ticket read as admissible when the statement began: a concurrent scan (or
  // cancellation) changed it meanwhile. A new statement sees what it did.
  const [now] = await sql.query(TICKET_BY_CODE, [confirmationCode]);
  if (!now) return UNKNOWN;
  const settled = refusalOf(now, at);
  if (settled) return settled;
  // What changed it was undone (its transaction rolled back): scan again.
  if (attempt >= 3) throw new Error('A check-in did not settle after 3 attempts');
  return checkIn(sql, confirmationCode, at, attempt + 1);
}

/** What a refused or admitted scan leaves behind: a count by outcome, and a log line for a refusal. */
export interface CheckInWatch {
  logger: Logger;
  count?: (outcome: CheckInOutcome) => void;
}

/** checkIn at a gate: counted, a refusal logged at info with the gate's account and thrown as its error. */
export async function checkInAtGate(
  sql: Queryable,
  gate: Principal,
  confirmationCode: string,
  at: ScanTime,
  watch: CheckInWatch,
): Promise<TicketView> {
  const result = await checkIn(sql, confirmationCode, at);
  watch.count?.(result.outcome);
  if (result.outcome === 'admitted') return result.ticket;
  watch.logger.info('check-in refused', {
    account: gate.name,
    outcome: result.outcome,
    ticketId: result.ticket?.ticketId,
    reason: result.refusal.message,
  });
  throw result.refusal;
}
