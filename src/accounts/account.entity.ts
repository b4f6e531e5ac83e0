import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/** visitor: a customer; staff: everything; gate: a door scanner (check-ins and ticket reads only). */
export const ROLES = ['visitor', 'staff', 'gate'] as const;
export type Role = (typeof ROLES)[number];

export const Account = defineEntity({
  name: 'Account',
  tableName: 'account',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    name: p.string().length(64).unique('account_name_key'),
    role: p.enum(ROLES),
    passwordHash: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type Account = InferEntity<typeof Account>;
