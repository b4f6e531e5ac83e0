import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

type PGliteClass = typeof PGlite;

/** The PGlite release: its initdb makes the same files every time for one release, another may not. */
async function pgliteVersion(): Promise<string> {
  const manifest = new URL('../package.json', import.meta.resolve('@electric-sql/pglite'));
  return (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version;
}

/**
 * A new in-memory PGlite cluster. Its initdb takes seconds (2.5 to 5 s on the CI machine, most of an
 * in-memory start) and makes the same files every time for one PGlite release, so its result is kept once,
 * compressed (4.5 MB), in `cacheDir` and loaded on later starts (0.6 s). A cluster file that cannot be read
 * or loaded is made again; two processes making it at once each write their own and rename it into place.
 */
export async function freshCluster(PGliteClass: PGliteClass, cacheDir: string | null): Promise<PGlite> {
  if (!cacheDir) return PGliteClass.create();
  const file = join(cacheDir, `pglite-${await pgliteVersion()}-initdb.tar.gz`);
  const kept = await readFile(file).catch(() => null);
  if (kept) {
    try {
      return await PGliteClass.create({ loadDataDir: new Blob([kept]) });
    } catch {
      // Damaged or unreadable: made again below, and replaced.
    }
  }
  const pglite = await PGliteClass.create();
  try {
    const tarball = await pglite.dumpDataDir('gzip');
    await mkdir(cacheDir, { recursive: true });
    const part = `${file}.${process.pid}.part`;
    await writeFile(part, Buffer.from(await tarball.arrayBuffer()));
    await rename(part, file);
  } catch {
    // Not kept (a read-only folder, a full disk): the next start runs initdb again, nothing more.
  }
  return pglite;
}
