import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * Failed HTTP Basic logins counted per key (`address:…` for a client address, `account:…` for a digest of
 * an account name) over a window, shared by every instance through the database.
 */
export const LoginThrottle = defineEntity({
  name: 'LoginThrottle',
  tableName: 'login_throttle',
  properties: {
    key: p.string().length(100).primary(),
    failures: p.integer(),
    windowStartedAt: p.datetime().index('login_throttle_window_started_at_index'),
    blockedUntil: p.datetime().nullable(),
  },
});

export type LoginThrottle = InferEntity<typeof LoginThrottle>;
