import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * HTTP Basic password checks counted per key (`pair:…` for a client address and account name, `address:…`
 * for a client address, `account:…` for a digest of an account name) over a window, shared by every
 * instance through the database; `failureLimit` is the count past which the key is refused (null: never).
 */
export const LoginThrottle = defineEntity({
  name: 'LoginThrottle',
  tableName: 'login_throttle',
  properties: {
    key: p.string().length(100).primary(),
    failures: p.integer(),
    windowStartedAt: p.datetime().index('login_throttle_window_started_at_index'),
    blockedUntil: p.datetime().nullable(),
    failureLimit: p.integer().nullable(),
  },
});

export type LoginThrottle = InferEntity<typeof LoginThrottle>;
