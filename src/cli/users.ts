// `npm run users -- add NAME --role visitor|staff|gate | list | remove NAME | passwd NAME | unlock NAME`
// Manages accounts in the database the configuration names. Passwords are read from standard input
// (one line) or, when none is piped in, generated and printed once. On the embedded default database,
// run it while the server is stopped: an embedded database belongs to one process at a time.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ROLES } from '../accounts/account.entity.ts';
import { accountName, password as passwordRule } from '../accounts/accounts.rules.ts';
import { changePassword, createAccount, deleteAccount, listAccounts } from '../accounts/accounts.service.ts';
import { generatePassword } from '../accounts/passwords.ts';
import { createLoginThrottler } from '../accounts/throttling.ts';
import { loadConfig } from '../config.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { runCli, UsageError } from './cli.ts';

const USAGE = `usage: npm run users -- add NAME --role visitor|staff|gate
       npm run users -- list
       npm run users -- remove NAME
       npm run users -- passwd NAME
       npm run users -- unlock NAME
Roles: visitor (buys tickets, reads and cancels its own), staff (everything), gate (a door scanner:
checks tickets in and reads tickets, nothing else).
A password is read from standard input, or generated and printed when none is piped in.
unlock clears the failed-login counters of an account (a lock-out from any address), at once for every
instance.`;

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
    throw new UsageError(
      positionals[1] ? `NAME ${parsed.error.issues[0]!.message}` : `${positionals[0]} needs an account NAME`,
    );
  return parsed.data;
}

async function run(db: Database, argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { role: { type: 'string' } },
  });
  switch (positionals[0]) {
    case 'list': {
      for (const account of await listAccounts(db.sql)) console.log(`${account.name}\t${account.role}`);
      return;
    }
    case 'add': {
      const name = nameOf(positionals);
      const role = z.enum(ROLES).safeParse(values.role);
      if (!role.success) throw new UsageError('--role must be visitor, staff or gate');
      const { password, generated } = await readPassword();
      await createAccount(db.sql, { name, role: role.data, password });
      console.log(
        generated
          ? `added ${name} (${role.data}) with password: ${password}`
          : `added ${name} (${role.data})`,
      );
      return;
    }
    case 'remove': {
      const name = nameOf(positionals);
      await deleteAccount(db.sql, name);
      console.log(`removed ${name}`);
      return;
    }
    case 'unlock': {
      const name = nameOf(positionals);
      await createLoginThrottler(db.sql).unlock(name);
      console.log(`unlocked ${name}: its failed-login counters are cleared`);
      return;
    }
    case 'passwd': {
      const name = nameOf(positionals);
      const { password, generated } = await readPassword();
      await changePassword(db.sql, name, password);
      console.log(generated ? `new password of ${name}: ${password}` : `changed the password of ${name}`);
      return;
    }
    case undefined:
      throw new UsageError('a command is needed: add, list, remove, passwd or unlock');
    default:
      throw new UsageError(`unknown command "${positionals[0]}"`);
  }
}

await runCli('users', USAGE, async (args) => {
  const config = loadConfig();
  const db = await openDatabase(config.database);
  try {
    await migrate(db);
    await run(db, args);
  } finally {
    await db.close();
  }
});
