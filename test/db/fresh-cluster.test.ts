// A new in-memory database starts from a kept initdb result (src/db/fresh-cluster.ts): the first start makes
// and keeps it, later ones load it and get a working, empty cluster; a damaged file is made again.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { execute } from '../support/db.ts';

let cacheDir: string;
beforeEach(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'museum-cluster-'));
});
afterEach(() => rm(cacheDir, { recursive: true, force: true }));

/** Opens an in-memory database with `cacheDir`, migrates it, and says what it holds. */
async function openAndMigrate() {
  const db = await openDatabase({ kind: 'embedded', dataDir: null, cacheDir });
  try {
    await migrate(db);
    const [{ accounts }] = await execute<[{ accounts: string }]>(
      db,
      'select count(*)::text as accounts from account',
    );
    const tables = await execute<{ name: string }[]>(
      db,
      `select table_name as name from information_schema.tables where table_schema = 'public'`,
    );
    return { accounts, tables: tables.map(({ name }) => name).sort() };
  } finally {
    await db.close();
  }
}

const keptFile = async () => {
  const files = (await readdir(cacheDir)).filter((name) => name.endsWith('-initdb.tar.gz'));
  expect(files).toHaveLength(1);
  return join(cacheDir, files[0]!);
};

describe('a new in-memory database', () => {
  it('keeps its initdb result once, and a second start loads it: empty, migrated alike', async () => {
    const first = await openAndMigrate();
    const file = await keptFile();
    const made = await stat(file);
    // A gzip'd tar of a PostgreSQL cluster (its PG_VERSION file among the first entries).
    expect(gunzipSync(await readFile(file)).includes('PG_VERSION')).toBe(true);

    const second = await openAndMigrate();
    expect(second).toEqual(first);
    expect(first.accounts).toBe('0');
    expect(first.tables).toContain('ticket');
    // Loaded, not made again: the file is the one the first start wrote.
    expect((await stat(file)).mtimeMs).toBe(made.mtimeMs);
    expect(await readdir(cacheDir)).toEqual([file.slice(cacheDir.length + 1)]);
  });

  it('makes a damaged file again and starts all the same', async () => {
    await openAndMigrate();
    const file = await keptFile();
    await writeFile(file, 'not a cluster');
    const started = await openAndMigrate();
    expect(started.tables).toContain('ticket');
    expect(gunzipSync(await readFile(file)).includes('PG_VERSION')).toBe(true);
  });

  it('starts without a folder to keep it in (nothing written)', async () => {
    const db = await openDatabase({ kind: 'embedded', dataDir: null });
    try {
      const [{ one }] = await execute<[{ one: number }]>(db, 'select 1 as one');
      expect(one).toBe(1);
    } finally {
      await db.close();
    }
    expect(await readdir(cacheDir)).toEqual([]);
  });
});
