import { z } from 'zod';
import { CONFIRMATION_CODE_LENGTH, CONFIRMATION_CODE_PATTERN } from '../tickets/tickets.rules.ts';

/** What a scanner sends: the confirmation code its camera read from the ticket's QR code. */
export const checkInSchema = z.object({
  confirmationCode: z
    .string()
    .regex(CONFIRMATION_CODE_PATTERN, 'must be a confirmation code such as ticket-general-e5e5c6-dce78')
    .meta({ maxLength: CONFIRMATION_CODE_LENGTH }),
});

export type CheckInInput = z.infer<typeof checkInSchema>;

/** What became of a scan: the label of the check-ins counter, and of a refusal's log line. */
export const CHECK_IN_OUTCOMES = [
  'admitted',
  'already_checked_in',
  'not_valid_today',
  'too_early',
  'too_late',
  'cancelled',
  'not_paid',
  'unknown',
] as const;

export type CheckInOutcome = (typeof CHECK_IN_OUTCOMES)[number];
