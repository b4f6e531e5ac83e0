import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../common/errors.ts';
import { type Queryable, statement } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import { Account } from './account.entity.ts';
import type { NewAccount } from './accounts.rules.ts';
import type { Authenticator, Principal, StoredCredentials } from './authenticator.ts';
import { generatePassword, hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import type { LoginThrottler } from './throttling.ts';

export async function findCredentials(em: EntityManager, name: string): Promise<StoredCredentials | null> {
  const account = await em.findOne(Account, { name });
  return (
    account && { id: account.id, name: account.name, role: account.role, passwordHash: account.passwordHash }
  );
}

/**
 * Stores a hash of `password` made with today's parameters in place of `account`'s, unless the account's hash
 * changed meanwhile (a new password): the new hash, or null.
 */
export async function upgradePasswordHash(
  em: EntityManager,
  account: StoredCredentials,
  password: string,
): Promise<string | null> {
  const passwordHash = await hashPassword(password);
  const updated = await em.nativeUpdate(
    Account,
    { id: account.id, passwordHash: account.passwordHash },
    { passwordHash },
  );
  return updated === 1 ? passwordHash : null;
}

/**
 * Start-up accounts: the configured admin is created or given the configured password and the staff role;
 * with none configured and no account at all, an `admin` with a random password is created and the
 * password printed once.
 */
export async function bootstrapAdmin(
  em: EntityManager,
  admin: { name: string; password: string } | null,
  logger: Logger,
  announce: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<void> {
  if (admin) {
    const existing = await em.findOne(Account, { name: admin.name });
    if (!existing) {
      em.create(Account, {
        name: admin.name,
        role: 'staff',
        passwordHash: await hashPassword(admin.password),
      });
      logger.info('created the configured staff account', { account: admin.name });
    } else if (
      existing.role !== 'staff' ||
      needsRehash(existing.passwordHash) ||
      !(await verifyPassword(admin.password, existing.passwordHash))
    ) {
      existing.role = 'staff';
      existing.passwordHash = await hashPassword(admin.password);
      logger.info('updated the configured staff account', { account: admin.name });
    }
    await em.flush();
    return;
  }
  if ((await em.count(Account, {})) > 0) return;
  const password = generatePassword();
  em.create(Account, { name: 'admin', role: 'staff', passwordHash: await hashPassword(password) });
  await em.flush();
  announce(
    `Created staff account "admin" with password: ${password}  (shown once; set MUSEUM_ADMIN_USER and MUSEUM_ADMIN_PASSWORD to choose your own)`,
  );
}

const toPrincipal = (account: Account): Principal => ({
  id: account.id,
  name: account.name,
  role: account.role,
});

export async function listAccounts(em: EntityManager): Promise<Principal[]> {
  return (await em.find(Account, {}, { orderBy: { name: 'asc' } })).map(toPrincipal);
}

export async function createAccount(em: EntityManager, input: NewAccount): Promise<Principal> {
  const passwordHash = await hashPassword(input.password);
  try {
    const account = em.create(Account, { name: input.name, role: input.role, passwordHash });
    await em.flush();
    return toPrincipal(account);
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw conflict(`An account named "${input.name}" exists`);
    throw error;
  }
}

/** Deletes an account; its tickets stay (they were paid for) without an owner. */
export async function deleteAccount(em: EntityManager, name: string): Promise<void> {
  const deleted = await em.nativeDelete(Account, { name });
  if (deleted === 0) throw notFound(`There is no account named "${name}"`);
}

/**
 * A signed-in member of staff (`by`) deletes an account other than their own (their own: CONFLICT); its
 * credentials stop working at once on this instance (`authenticator` forgets them).
 */
export async function deleteAccountAs(
  em: EntityManager,
  by: Principal,
  name: string,
  authenticator: Pick<Authenticator, 'forget'>,
): Promise<true> {
  if (name === by.name) throw conflict('You cannot delete the account you are signed in with');
  await deleteAccount(em, name);
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

export async function changePassword(em: EntityManager, name: string, newPassword: string): Promise<void> {
  const updated = await em.nativeUpdate(Account, { name }, { passwordHash: await hashPassword(newPassword) });
  if (updated === 0) throw notFound(`There is no account named "${name}"`);
}

const ACCOUNT_BY_ID = statement<Principal, [id: string]>(
  'account_by_id',
  'select id, name, role from account where id = $1::uuid',
);

/** An account as `me` shows it: to itself, or to staff; anyone else gets null. */
export async function getAccount(sql: Queryable, viewer: Principal, id: string): Promise<Principal | null> {
  if (viewer.id !== id && viewer.role !== 'staff') return null;
  if (viewer.id === id) return viewer;
  const [account] = await sql.query(ACCOUNT_BY_ID, [id]);
  return account ?? null;
}
