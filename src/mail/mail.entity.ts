import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

export const MAIL_KINDS = ['tickets', 'cancellation', 'refund', 'expired'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export const MAIL_STATUSES = ['pending', 'sent', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/**
 * The mail outbox: a row per mail owed to a buyer, written in the transaction that sold, confirmed, gave back
 * or refunded what it tells of, so no sale goes without its mail and no mail without its sale. The mail worker
 * (src/mail/mailer.ts) renders it from the tickets as they are when it is sent and hands it to SMTP;
 * `nextAttemptAt` is its lease while an attempt runs, then the time of the next attempt.
 */
export const Mail = defineEntity({
  name: 'Mail',
  tableName: 'mail',
  properties: {
    /** The ticket's own id for the mail of a ticket sold on its own (src/mail/outbox.ts); else its own. */
    id: p.uuid().primary(),
    kind: p.enum(MAIL_KINDS),
    /** The order it tells of; null for a ticket sold on its own. */
    orderId: p.uuid().nullable(),
    /** The tickets it tells of, in the order's order. */
    ticketIds: p.array<string>().columnType('uuid[]'),
    /** The buyer's address; null once erased (nothing more is sent). */
    recipient: p.string().length(320).nullable(),
    /** A refund's amount, in hundredths of the currency. */
    amount: p.integer().nullable(),
    /** A copy asked for by the buyer or staff (resendTickets), counted against the hourly limit. */
    resent: p.boolean().default(false),
    status: p.enum(MAIL_STATUSES).default('pending'),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().nullable(),
    lastAttemptAt: p.datetime().nullable(),
    /** What the SMTP server (or the connection) said last, when it did not take the mail. */
    lastError: p.string().length(500).nullable(),
    sentAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
  indexes: [
    {
      name: 'mail_due_index',
      expression: `create index "mail_due_index" on "mail" ("next_attempt_at") where "status" = 'pending'`,
    },
    {
      name: 'mail_order_index',
      expression: `create index "mail_order_index" on "mail" ("order_id", "created_at") where "order_id" is not null`,
    },
    {
      name: 'mail_ticket_copies_index',
      expression: `create index "mail_ticket_copies_index" on "mail" (("ticket_ids"[1])) where "resent" and "order_id" is null`,
    },
  ],
});

export type Mail = InferEntity<typeof Mail>;
