import type { AppDeps } from '../context.ts';
import { withinArgument } from '../graphql/argument-errors.ts';
import { builder } from '../graphql/builder.ts';
import { TicketType } from '../tickets/tickets.graphql.ts';
import { checkInSchema } from './check-ins.rules.ts';
import { checkInAtGate, type ScanTime } from './check-ins.service.ts';

const scanTime = ({ clock, config }: AppDeps): ScanTime => ({
  ...clock.now(),
  graceMinutes: config.entryGraceMinutes,
});

export const CheckInInput = builder.inputType('CheckInInput', {
  description: "What a scanner read from a ticket's QR code.",
  fields: (t) => ({
    confirmationCode: t.string({ description: 'ticket-{type}-{6 hex}-{5 hex}, as the QR code holds it.' }),
  }),
  validate: checkInSchema,
});

builder.mutationField('checkIn', (t) =>
  t.field({
    type: TicketType,
    description:
      "Admits a ticket at the door (gate and staff accounts): valid today (the museum's time zone), not cancelled, not yet checked in. Answers the ticket, now used, with checkedInAt. A timed ticket is admitted from MUSEUM_ENTRY_GRACE_MINUTES before its entry slot starts until as long after it ends. Refused: CONFLICT (already checked in at …; not valid today …; too early: …; too late: …; cancelled) or NOT_FOUND (no such code). Of concurrent scans of one ticket, on any number of instances, exactly one is admitted.",
    authScopes: { gate: true, staff: true },
    args: { input: t.arg({ type: CheckInInput, description: 'The code the scanner read.' }) },
    resolve: (_root, { input }, { deps, principal }) =>
      withinArgument('input', () =>
        checkInAtGate(deps.db.sql, principal!, input.confirmationCode, scanTime(deps), {
          logger: deps.logger,
          count: deps.metrics?.checkIn,
        }),
      ),
  }),
);
