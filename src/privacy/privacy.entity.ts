import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

export const PRIVACY_REQUEST_KINDS = ['export', 'erasure', 'account_deletion', 'retention'] as const;
export type PrivacyRequestKind = (typeof PRIVACY_REQUEST_KINDS)[number];

export const REQUESTERS = ['staff', 'account_holder', 'retention'] as const;
export type Requester = (typeof REQUESTERS)[number];

/**
 * A record of each export and erasure of personal data (src/privacy/): who asked, when, and what it counted,
 * never the address in clear: `subjectHash` is a keyed hash (HMAC-SHA256) of the address or account name, so
 * staff can find a request again by address. A retention run has its museum day (`retentionDate`, unique:
 * one run a day across instances) and no subject.
 */
export const PrivacyRequest = defineEntity({
  name: 'PrivacyRequest',
  tableName: 'privacy_request',
  properties: {
    id: p.uuid().primary(),
    kind: p.enum(PRIVACY_REQUEST_KINDS),
    requestedBy: p.enum(REQUESTERS),
    /** The account that asked (staff, or the account holder); null for retention. Not a foreign key: the record outlives it. */
    accountId: p.uuid().nullable(),
    subjectHash: p.string().length(64).nullable(),
    retentionDate: p.date().nullable().unique('privacy_request_retention_date_key'),
    orders: p.integer().default(0),
    tickets: p.integer().default(0),
    mails: p.integer().default(0),
    idempotencyRecords: p.integer().default(0),
    accounts: p.integer().default(0),
    createdAt: p.datetime(),
  },
  indexes: [
    { name: 'privacy_request_created_at_index', properties: ['createdAt', 'id'] },
    {
      name: 'privacy_request_subject_hash_index',
      expression: `create index "privacy_request_subject_hash_index" on "privacy_request" ("subject_hash") where "subject_hash" is not null`,
    },
  ],
});

export type PrivacyRequest = InferEntity<typeof PrivacyRequest>;

/** The key of the subject hashes, made once per database unless MUSEUM_PRIVACY_KEY gives one. */
export const PrivacyKey = defineEntity({
  name: 'PrivacyKey',
  tableName: 'privacy_key',
  properties: {
    id: p.smallint().primary().autoincrement(false),
    key: p.string().length(128),
  },
  checks: [{ name: 'privacy_key_one_row_check', expression: '"id" = 1' }],
});

export type PrivacyKey = InferEntity<typeof PrivacyKey>;
