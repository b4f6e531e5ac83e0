// `npm run users -- add NAME --role visitor|staff | list | remove NAME | passwd NAME`
// Manages accounts in the database the configuration names. Passwords are read from standard input
// (one line) or, when none is piped in, generated and printed once. On the embedded default database,
// run it while the server is stopped: an embedded database belongs to one process at a time.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ROLES } from '../accounts/account.entity.ts';
import { accountName, password as passwordRule } from '../accounts/accounts.rules.ts';
import { changePassword, createAccount, deleteAccount, listAccounts } from '../accounts/accounts.service.ts';
import { generatePassword } from '../accounts/passwords.ts';
import { prepareDatabase } from '../app.ts';
import { DomainError } from '../common/errors.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { type Database, DatabaseInUseError, openDatabase } from '../db/database.ts';
import { createLogger } from '../logger.ts';

const USAGE = `usage: npm run users -- add NAME --role visitor|staff
       npm run users -- list
       npm run users -- remove NAME
       npm run users -- passwd NAME
A password is read from standard input, or generated and printed when none is piped in.`;

class UsageError extends Error {}

async function readPassword(): Promise<{ password: string; generated: boolean }> {
  if (process.stdin.isTTY) return { password: generatePassword(), generated: true };
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  const line = text.split(/\r?\n/)[0] ?? '';
  if (line === '') return { password: generatePassword(), generated: true };
  const checked = passwordRule.safeParse(line);
  if (!checked.success) throw new UsageError(`password ${checked.error.issues[0]!.message}`);
  return { password: line, generated: false };
}

function nameOf(positionals: string[]): string {
  const parsed = accountName.safeParse(positionals[1]);
  if (!parsed.success)
    throw new UsageError(positionals[1] ? `NAME ${parsed.error.issues[0]!.message}` : USAGE);
  return parsed.data;
}

async function run(db: Database, argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { role: { type: 'string' } },
  });
  const em = db.fork();
  switch (positionals[0]) {
    case 'list': {
      for (const account of await listAccounts(em)) console.log(`${account.name}\t${account.role}`);
      return;
    }
    case 'add': {
      const name = nameOf(positionals);
      const role = z.enum(ROLES).safeParse(values.role);
      if (!role.success) throw new UsageError('--role must be visitor or staff');
      const { password, generated } = await readPassword();
      await createAccount(em, { name, role: role.data, password });
      console.log(
        generated
          ? `added ${name} (${role.data}) with password: ${password}`
          : `added ${name} (${role.data})`,
      );
      return;
    }
    case 'remove': {
      const name = nameOf(positionals);
      await deleteAccount(em, name);
      console.log(`removed ${name}`);
      return;
    }
    case 'passwd': {
      const name = nameOf(positionals);
      const { password, generated } = await readPassword();
      await changePassword(em, name, password);
      console.log(generated ? `new password of ${name}: ${password}` : `changed the password of ${name}`);
      return;
    }
    default:
      throw new UsageError(USAGE);
  }
}

try {
  const config = loadConfig();
  const db = await openDatabase(config.database);
  try {
    await prepareDatabase(db, config, createLogger(config.logLevel));
    await run(db, process.argv.slice(2));
  } finally {
    await db.close();
  }
} catch (error) {
  if (
    error instanceof ConfigError ||
    error instanceof UsageError ||
    error instanceof DomainError ||
    error instanceof DatabaseInUseError
  ) {
    console.error(error.message);
    process.exit(error instanceof UsageError ? 2 : 1);
  }
  throw error;
}
