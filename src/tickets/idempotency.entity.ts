import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/** The first successful purchase answered for an (account, Idempotency-Key), replayed for 24 hours. */
export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_record',
  properties: {
    accountId: p.uuid().primary(),
    key: p.string().length(255).primary(),
    requestHash: p.string().length(64),
    response: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime().index('idempotency_record_created_at_index'),
  },
});

export type IdempotencyRecord = InferEntity<typeof IdempotencyRecord>;
