import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.ts';
import { Account } from './account.entity.ts';
import type { StoredCredentials } from './authenticator.ts';
import { generatePassword, hashPassword, verifyPassword } from './passwords.ts';

export async function findCredentials(em: EntityManager, name: string): Promise<StoredCredentials | null> {
  const account = await em.findOne(Account, { name });
  return (
    account && { id: account.id, name: account.name, role: account.role, passwordHash: account.passwordHash }
  );
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
    } else if (existing.role !== 'staff' || !(await verifyPassword(admin.password, existing.passwordHash))) {
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
