// Accounts (C2): staff manage them over GraphQL and from the command line; `me`.
import { spawnSync } from 'node:child_process';
import { randomBytes, scryptSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changePassword } from '../../src/accounts/accounts.service.ts';
import { verifyPassword } from '../../src/accounts/passwords.ts';
import { execute, insertAccount } from '../support/db.ts';
import { basic, type ListeningMuseum, openSecondInstance, upcomingOpenDay } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum();

const CREATE = 'mutation($input: CreateAccountInput!) { createAccount(input: $input) { name role } }';
const DELETE = 'mutation($name: String!) { deleteAccount(name: $name) }';
const ME = '{ me { name role } }';

describe('me', () => {
  it('is the account that sent the credentials', async () => {
    expect((await museum.graphql(ME, {}, { as: 'visitor' })).body.data.me).toEqual({
      name: 'visitor',
      role: 'visitor',
    });
    expect((await museum.graphql(ME, {}, { as: 'staff' })).body.data.me).toEqual({
      name: 'curator',
      role: 'staff',
    });
    expect((await museum.graphql(ME, {}, { as: 'anonymous' })).status).toBe(401);
  });
});

describe('createAccount and deleteAccount', () => {
  it('lets staff create an account that can sign in at once, and delete it so it stops at once', async () => {
    const created = await museum.graphql(
      CREATE,
      { input: { name: 'new.visitor', role: 'visitor', password: 'a-long-password' } },
      { as: 'staff' },
    );
    expect(created.body).toEqual({ data: { createAccount: { name: 'new.visitor', role: 'visitor' } } });
    const as = { authorization: basic('new.visitor', 'a-long-password') };
    const bought = await museum.rest('POST', '/tickets', {
      as,
      body: { ticketType: 'general', ticketDate: upcomingOpenDay(), email: 'new@example.com' },
    });
    expect(bought.status).toBe(201);
    expect((await museum.graphql(ME, {}, { as })).body.data.me.name).toBe('new.visitor');

    expect(
      (await museum.graphql(DELETE, { name: 'new.visitor' }, { as: 'staff' })).body.data.deleteAccount,
    ).toBe(true);
    expect((await museum.graphql(ME, {}, { as })).status).toBe(401);
    const [ticket] = await execute(museum.deps.db, 'select account_id from ticket where id = $1', [
      bought.body.ticketId,
    ]);
    expect(ticket).toEqual({ account_id: null });
  });

  it('is for staff only', async () => {
    const input = { name: 'sneaky', role: 'staff', password: 'a-long-password' };
    const response = await museum.graphql(CREATE, { input }, { as: 'visitor' });
    expect(response.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(
      (await museum.graphql(DELETE, { name: 'other' }, { as: 'visitor' })).body.errors[0].extensions.code,
    ).toBe('FORBIDDEN');
  });

  it.each([
    [{ name: 'has:colon', role: 'visitor', password: 'a-long-password' }, 'input.name'],
    [{ name: '', role: 'visitor', password: 'a-long-password' }, 'input.name'],
    [{ name: 'ok', role: 'visitor', password: 'short' }, 'input.password'],
    [{ name: 'ok', role: 'admin', password: 'a-long-password' }, 'input.role'],
  ])('rejects %o naming %s', async (input, path) => {
    const response = await museum.graphql(CREATE, { input }, { as: 'staff' });
    expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors[0].extensions.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('refuses a taken name with CONFLICT, an unknown one with NOT_FOUND, and deleting oneself', async () => {
    const input = { name: 'visitor', role: 'visitor', password: 'a-long-password' };
    expect((await museum.graphql(CREATE, { input }, { as: 'staff' })).body.errors[0].extensions.code).toBe(
      'CONFLICT',
    );
    expect(
      (await museum.graphql(DELETE, { name: 'nobody' }, { as: 'staff' })).body.errors[0].extensions.code,
    ).toBe('NOT_FOUND');
    expect(
      (await museum.graphql(DELETE, { name: 'curator' }, { as: 'staff' })).body.errors[0].extensions.code,
    ).toBe('CONFLICT');
  });
});

describe('npm run users', () => {
  let dataDir: string;
  const users = (args: string[], input?: string) =>
    spawnSync(process.execPath, [new URL('../../src/cli/users.ts', import.meta.url).pathname, ...args], {
      env: {
        PATH: process.env.PATH,
        MUSEUM_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        MUSEUM_ADMIN_USER: 'boss',
        MUSEUM_ADMIN_PASSWORD: 'boss-password',
      },
      input: input ?? '',
      encoding: 'utf8',
    });
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'museum-users-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('adds, lists, changes passwords of and removes accounts', () => {
    expect(users(['add', 'ana', '--role', 'visitor'], 'ana-password\n').stdout).toBe('added ana (visitor)\n');
    const generated = users(['add', 'bo', '--role', 'staff']);
    expect(generated.stdout).toMatch(/^added bo \(staff\) with password: \S{16,}\n$/);
    // The CLI only migrates: the configured admin is the server's start-up work, not the tool's.
    expect(users(['list']).stdout).toBe('ana\tvisitor\nbo\tstaff\n');
    expect(users(['passwd', 'ana'], 'new-ana-password\n').stdout).toBe('changed the password of ana\n');
    expect(users(['remove', 'bo']).stdout).toBe('removed bo\n');
    expect(users(['list']).stdout).toBe('ana\tvisitor\n');
    expect(users(['unlock', 'ana']).stdout).toBe('unlocked ana: its failed-login counters are cleared\n');
  }, 120_000);

  it('explains itself with --help, and misuse in one line with exit code 2', () => {
    const help = users(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run users -- add NAME --role visitor\|staff\|gate\n/);
    expect(help.stdout).toContain('npm run users -- unlock NAME');
    for (const [args, message] of [
      [[], 'users: a command is needed: add, list, remove, passwd or unlock'],
      [['dance'], 'users: unknown command "dance"'],
      [['unlock'], 'users: unlock needs an account NAME'],
      [['add', 'x', '--role', 'king'], 'users: --role must be visitor, staff or gate'],
      [['list', '--colour'], "users: Unknown option '--colour'"],
    ] as const) {
      const misuse = users([...args]);
      expect(misuse.status, args.join(' ')).toBe(2);
      expect(misuse.stderr, args.join(' ')).toBe(`${message} (users --help shows the usage)\n`);
      expect(misuse.stdout).toBe('');
    }
  }, 120_000);

  it('says what is wrong and exits non-zero', () => {
    const taken = users(['add', 'ana', '--role', 'visitor'], 'ana-password\n');
    expect(taken.status).toBe(1);
    expect(taken.stderr).toBe('An account named "ana" exists\n');
    expect(users(['add', 'x', '--role', 'visitor'], 'short\n').stderr).toBe(
      'users: password must be at least 8 characters (users --help shows the usage)\n',
    );
    expect(users(['remove', 'nobody']).status).toBe(1);
  }, 120_000);
});

describe('npm run db:migrate', () => {
  const tool = (script: string, args: string[], dataDir: string) =>
    spawnSync(process.execPath, [new URL(`../../src/cli/${script}`, import.meta.url).pathname, ...args], {
      env: { PATH: process.env.PATH, MUSEUM_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      input: '',
      encoding: 'utf8',
    });

  it('only migrates: no account is created, no password printed', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'museum-migrate-'));
    try {
      const first = tool('migrate.ts', [], dataDir);
      expect(first.status).toBe(0);
      expect(first.stdout).toMatch(/^applied \d+ migration\(s\): Migration\d+/);
      expect(first.stdout + first.stderr).not.toMatch(/password/i);
      expect(tool('migrate.ts', [], dataDir).stdout).toBe('the database is up to date\n');
      expect(tool('users.ts', ['list'], dataDir).stdout).toBe('');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it.each(['migrate.ts', 'print-schema.ts', 'print-openapi.ts', 'create-migration.ts'])(
    '%s answers --help, and an unexpected argument in one line with exit code 2',
    (script) => {
      const help = tool(script, ['--help'], '/nonexistent');
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/^usage: npm run /);
      const misuse = tool(script, ['extra'], '/nonexistent');
      expect(misuse.status).toBe(2);
      expect(misuse.stderr).toMatch(
        /^[a-z:]+: unexpected argument "extra" \([a-z:]+ --help shows the usage\)\n$/,
      );
    },
  );
});

describe('a password hashed with earlier parameters (scrypt N=2^15, r=8, p=1)', () => {
  it("signs in, and its hash is made again with today's parameters, once", async () => {
    const salt = randomBytes(16);
    const key = scryptSync('an-earlier-password', salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 << 20 });
    const earlier = ['scrypt', 2 ** 15, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
    await insertAccount(museum.deps.db, { name: 'earlier.hash', role: 'visitor', passwordHash: earlier });
    const storedHash = async () =>
      (
        await execute<{ password_hash: string }[]>(
          museum.deps.db,
          `select password_hash from account where name = 'earlier.hash'`,
        )
      )[0]!.password_hash;

    const wrong = { authorization: basic('earlier.hash', 'not-the-password') };
    expect((await museum.request('GET', '/museum-hours', { headers: wrong })).status).toBe(401);
    expect(await storedHash()).toBe(earlier);

    const right = { authorization: basic('earlier.hash', 'an-earlier-password') };
    expect((await museum.request('GET', '/museum-hours', { headers: right })).status).toBe(200);
    const upgraded = await storedHash();
    expect(upgraded).toMatch(/^scrypt\$8192\$8\$10\$/);
    expect(await verifyPassword('an-earlier-password', upgraded)).toBe(true);
    expect((await museum.request('GET', '/museum-hours', { headers: right })).status).toBe(200);
    expect(await storedHash()).toBe(upgraded);
  });
});

describe('another instance over the same PostgreSQL', () => {
  /** The status of `me` asked of an instance with these Basic credentials. */
  async function meStatus(instance: ListeningMuseum, name: string, password: string): Promise<number> {
    const response = await instance.fetch('http://museum.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic(name, password) },
      body: JSON.stringify({ query: ME }),
    });
    return response.status;
  }

  /** Asks every 250 ms, for up to 10 s, while the answer is 200; the last answer. */
  async function statusOnceRefused(ask: () => Promise<number>): Promise<number> {
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = await ask();
    }
    return status;
  }

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'stops accepting a deleted account within 10 seconds, its credential cache included',
    async () => {
      const other = await openSecondInstance(museum);
      try {
        const input = { name: 'leaving', role: 'visitor', password: 'leaving-password' };
        await museum.graphql(CREATE, { input }, { as: 'staff' });
        const meOnOther = () => meStatus(other, 'leaving', 'leaving-password');
        expect(await meOnOther()).toBe(200); // now cached on the other instance
        await museum.graphql(DELETE, { name: 'leaving' }, { as: 'staff' });
        expect(await statusOnceRefused(meOnOther)).toBe(401);
      } finally {
        await other.close();
      }
    },
  );

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'stops accepting a password changed elsewhere within 10 seconds, and accepts the new one',
    async () => {
      const other = await openSecondInstance(museum);
      try {
        const input = { name: 'changing', role: 'visitor', password: 'first-password' };
        await museum.graphql(CREATE, { input }, { as: 'staff' });
        const meOnOther = (password: string) => meStatus(other, 'changing', password);
        expect(await meOnOther('first-password')).toBe(200); // verified, and kept, on the other instance
        // Used on, past its first TTL: renewed (the account read again), still accepted.
        const renewedUntil = Date.now() + 6_000;
        while (Date.now() < renewedUntil) {
          expect(await meOnOther('first-password')).toBe(200);
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        // As `npm run users -- passwd changing` does it.
        await changePassword(museum.deps.db.sql, 'changing', 'second-password');
        expect(await statusOnceRefused(() => meOnOther('first-password'))).toBe(401);
        expect(await meOnOther('second-password')).toBe(200);
      } finally {
        await other.close();
      }
    },
  );
});
