import type { Role } from '../../src/accounts/account.entity.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import type { Database } from '../../src/db/database.ts';

/**
 * The rows of one SQL text ($1, $2, … bound to `values`), for a test's own look at the tables or a change
 * made behind the service's back; the service's statements are src/db/sql.ts's. On the service's pool, so
 * its type parsing (dates and timestamps as text) applies.
 */
export async function execute<T extends unknown[] = Record<string, unknown>[]>(
  db: Database,
  text: string,
  values: unknown[] = [],
): Promise<T> {
  return (await db.pool.query(text, values)).rows as T;
}

/** An account made directly in the table (with a hash of `password`, or `passwordHash` as it is). */
export async function insertAccount(
  db: Database,
  account: { name: string; role: Role } & ({ password: string } | { passwordHash: string }),
): Promise<void> {
  const hash = 'passwordHash' in account ? account.passwordHash : await hashPassword(account.password);
  await execute(
    db,
    'insert into account (id, name, role, password_hash, created_at) values (gen_random_uuid(), $1, $2, $3, now())',
    [account.name, account.role, hash],
  );
}
