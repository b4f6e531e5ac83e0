import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { conflict, notFound } from '../common/errors.ts';
import type { Queryable } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import {
  ACCOUNTS,
  ANY_ACCOUNT,
  CREDENTIALS_BY_NAME,
  DELETE_ACCOUNT,
  INSERT_ACCOUNT,
  SET_PASSWORD,
  SET_STAFF,
  UPGRADE_HASH,
} from './accounts.queries.ts';
import type { NewAccount } from './accounts.rules.ts';
import type { Authenticator, Principal, StoredCredentials } from './authenticator.ts';
import { generatePassword, hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import type { LoginThrottler } from './throttling.ts';

export async function findCredentials(sql: Queryable, name: string): Promise<StoredCredentials | null> {
  const [account] = await sql.query(CREDENTIALS_BY_NAME, [name]);
  return account ?? null;
}

/**
 * Stores a hash of `password` made with today's parameters in place of `account`'s, unless the account's hash
 * changed meanwhile (a new password): the new hash, or null.
 */
export async function upgradePasswordHash(
  sql: Queryable,
  account: StoredCredentials,
  password: string,
): Promise<string | null> {
  const passwordHash = await hashPassword(password);
  const updated = await sql.query(UPGRADE_HASH, [account.id, account.passwordHash, passwordHash]);
  return updated.length === 1 ? passwordHash : null;
}

/**
 * Start-up accounts: the configured admin is created or given the configured password and the staff role;
 * with none configured and no account at all, an `admin` with a random password is created and the
 * password printed once.
 */
export async function bootstrapAdmin(
  tx: Queryable,
  admin: { name: string; password: string } | null,
  logger: Logger,
  announce: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<void> {
  if (admin) {
    const [existing] = await tx.query(CREDENTIALS_BY_NAME, [admin.name]);
    if (!existing) {
      await tx.query(INSERT_ACCOUNT, [randomUUID(), admin.name, 'staff', await hashPassword(admin.password)]);
      logger.info('created the configured staff account', { account: admin.name });
    } else if (
      existing.role !== 'staff' ||
      needsRehash(existing.passwordHash) ||
      !(await verifyPassword(admin.password, existing.passwordHash))
    ) {
      await tx.query(SET_STAFF, [existing.id, await hashPassword(admin.password)]);
      logger.info('updated the configured staff account', { account: admin.name });
    }
    return;
  }
  if ((await tx.query(ANY_ACCOUNT, []))[0]?.any) return;
  const password = generatePassword();
  await tx.query(INSERT_ACCOUNT, [randomUUID(), 'admin', 'staff', await hashPassword(password)]);
  announce(
    `Created staff account "admin" with password: ${password}  (shown once; set MUSEUM_ADMIN_USER and MUSEUM_ADMIN_PASSWORD to choose your own)`,
  );
}

export async function listAccounts(sql: Queryable): Promise<Principal[]> {
  return sql.query(ACCOUNTS, []);
}

export async function createAccount(sql: Queryable, input: NewAccount): Promise<Principal> {
  const passwordHash = await hashPassword(input.password);
  try {
    const [account] = await sql.query(INSERT_ACCOUNT, [randomUUID(), input.name, input.role, passwordHash]);
    return account!;
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw conflict(`An account named "${input.name}" exists`);
    throw error;
  }
}

/** Deletes an account; its tickets stay (they were paid for) without an owner. */
export async function deleteAccount(sql: Queryable, name: string): Promise<void> {
  const deleted = await sql.query(DELETE_ACCOUNT, [name]);
  if (deleted.length === 0) throw notFound(`There is no account named "${name}"`);
}

/**
 * A signed-in member of staff (`by`) deletes an account other than their own (their own: CONFLICT); its
 * credentials stop working at once on this instance (`authenticator` forgets them).
 */
export async function deleteAccountAs(
  sql: Queryable,
  by: Principal,
  name: string,
  authenticator: Pick<Authenticator, 'forget'>,
): Promise<true> {
  if (name === by.name) throw conflict('You cannot delete the account you are signed in with');
  await deleteAccount(sql, name);
  authenticator.forget(name);
  return true;
}

/**
 * Clears the failed-login counters of an account on every instance, and logs who did; true when there was
 * something to clear (never without a throttle).
 */
export async function unlockAccount(
  throttle: LoginThrottler | undefined,
  logger: Logger,
  by: Principal,
  name: string,
): Promise<boolean> {
  const cleared = (await throttle?.unlock(name)) ?? false;
  logger.warn('login unlocked', { account: name, by: by.name, cleared });
  return cleared;
}

export async function changePassword(sql: Queryable, name: string, newPassword: string): Promise<void> {
  const updated = await sql.query(SET_PASSWORD, [name, await hashPassword(newPassword)]);
  if (updated.length === 0) throw notFound(`There is no account named "${name}"`);
}
