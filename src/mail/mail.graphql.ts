import { builder } from '../graphql/builder.ts';
import type { MailStatus } from './mail.entity.ts';
import type { EmailDelivery } from './mail.queries.ts';

export const MailStatusEnum = builder.enumType('MailStatus', {
  description:
    'pending: queued, or waiting to be tried again (the mail server was down or said "later"); sent: the mail server took it; failed: given up (the server refused it for good, or for 3 days).',
  values: {
    pending: {
      value: 'pending',
      description: 'Queued, or waiting to be tried again (the mail server was down or said "later").',
    },
    sent: { value: 'sent', description: 'The mail server took it.' },
    failed: { value: 'failed', description: 'Given up: the server refused it for good, or for 3 days.' },
  } satisfies Record<MailStatus, { value: MailStatus; description: string }>,
});

export const EmailDeliveryType = builder.objectRef<EmailDelivery>('EmailDelivery').implement({
  description: 'How the last mail of the tickets (or the last copy asked for) fared.',
  fields: (t) => ({
    status: t.expose('status', {
      type: MailStatusEnum,
      description: 'Where the mail stands: pending, sent or failed.',
    }),
    attempts: t.exposeInt('attempts', { description: 'Times it was handed to the mail server so far.' }),
    lastAttemptAt: t.expose('lastAttemptAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last handed to the mail server; null before the first attempt.',
    }),
    lastError: t.string({
      nullable: true,
      description:
        'What the mail server said when it did not take the mail (without addresses). Staff only: null for anyone else.',
      resolve: (delivery, _args, { principal }) => (principal?.role === 'staff' ? delivery.lastError : null),
    }),
  }),
});
