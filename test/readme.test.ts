// The README walked as a newcomer walks it: in a clean directory holding only the project's own files (what a
// fresh clone has; node_modules linked in, as `npm ci` would have made it), the server is started the way the
// README says, and its shell examples run as written (port aside), every curl failing on any 4xx or 5xx.
// Then the account commands run on the database that start left behind. The PostgreSQL examples are left to
// the tests that run on PostgreSQL.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/server.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The ```sh blocks of a `## ` section (null: the introduction, before the first), in order. */
function shellBlocks(section: string | null): string[] {
  const start = section === null ? 0 : readme.indexOf(`\n## ${section}\n`);
  if (start === -1) throw new Error(`README has no section "${section}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const text = readme.slice(start, end === -1 ? undefined : end);
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

let directory: string;
let port: number;
let server: ChildProcess;
let output = '';

/** Runs a README block under bash in the clean directory: each command must succeed. */
function walk(block: string) {
  const script = `set -euo pipefail
curl() { command curl -sS --fail-with-body "$@"; }
${block.replaceAll('127.0.0.1:4000', `127.0.0.1:${port}`)}`;
  const run = spawnSync('bash', ['-c', script], {
    cwd: directory,
    env: { PATH: process.env.PATH, HOME: directory, LOG_LEVEL: 'silent' },
    input: '',
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('the README, walked in a clean directory', () => {
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'museum-readme-'));
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((file) => file !== '');
    for (const file of files) {
      mkdirSync(dirname(join(directory, file)), { recursive: true });
      try {
        copyFileSync(join(root, file), join(directory, file));
      } catch {
        // Listed but deleted in the working tree: a fresh clone of it would not have it either.
      }
    }
    symlinkSync(join(root, 'node_modules'), join(directory, 'node_modules'), 'dir');

    // "To choose your own, start with: MUSEUM_ADMIN_USER=admin MUSEUM_ADMIN_PASSWORD=change-me-now npm start"
    const [start] = shellBlocks(null).slice(1);
    expect(start?.trim()).toBe('MUSEUM_ADMIN_USER=admin MUSEUM_ADMIN_PASSWORD=change-me-now npm start');
    port = await freePort();
    server = spawn('bash', ['-c', start!], {
      cwd: directory,
      env: { PATH: process.env.PATH, HOME: directory, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    server.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    const deadline = Date.now() + 90_000;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline || server.exitCode !== null || server.signalCode !== null)
        throw new Error(`npm start failed:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 120_000);

  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      process.kill(-server.pid!, 'SIGTERM');
      await exited;
    }
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('npm start says where it listens and which pages to open', () => {
    expect(output).toContain(`Museum API is listening on http://127.0.0.1:${port}/`);
    for (const page of ['/docs', '/graphql', '/openapi.json', '/health/live', '/health/ready'])
      expect(output).toContain(`http://127.0.0.1:${port}${page}`);
  });

  it.each(
    ['Trying it', 'Tickets that hold under load'].flatMap((section) =>
      shellBlocks(section).map((block, n) => [section, n + 1, block] as const),
    ),
  )('"%s", example %i, works when pasted', (_section, _n, block) => {
    const run = walk(block);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('"Caching, safe edits and trusted documents" works when pasted: 304, then the edit under If-Match', () => {
    const [conditional] = shellBlocks('Caching, safe edits and trusted documents');
    const run = walk(conditional!);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^304$/m);
    expect(run.stdout).toContain('"price":40');
  });

  it('"Accounts" works when pasted, on the database npm start left (the server stopped first)', async () => {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    process.kill(-server.pid!, 'SIGTERM');
    await exited;
    const [accounts] = shellBlocks('Accounts');
    const run = walk(accounts!);
    // npm's own warnings about this machine's npmrc aside.
    expect(run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('npm warn'))).toEqual([]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^added ana \(visitor\) with password: \S+$/m);
    expect(run.stdout).toMatch(/^admin\tstaff$/m);
    expect(run.stdout).toMatch(/^unlocked ana/m);
  }, 120_000);
});

describe("the README's layout", () => {
  const layout = readme.slice(
    readme.indexOf('```\nsrc/\n'),
    readme.indexOf('\ntest/\n', readme.indexOf('```\nsrc/\n')),
  );
  const testLayout = readme.slice(
    readme.indexOf('\ntest/\n', readme.indexOf('```\nsrc/\n')) + '\ntest/\n'.length,
    readme.indexOf('\n```', readme.indexOf('```\nsrc/\n')),
  );
  const sources = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && !file.includes('/migrations/'))
    .filter((file) => existsSync(join(root, file)));

  it('names every source file', () => {
    const named = (file: string) => {
      const base = file.split('/').at(-1)!;
      // The domain folders' <x>.entity.ts, <x>.rules.ts, <x>.service.ts and <x>.graphql.ts.
      const pattern = base.replace(/^[a-z]+(?=\.(entity|rules|service|graphql)\.ts$)/, '<x>');
      return layout.includes(base) || layout.includes(pattern);
    };
    expect(sources.filter((file) => !named(file))).toEqual([]);
  });

  it('names every folder of test/, and no other', () => {
    const folders = readdirSync(join(root, 'test'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !['fixtures', 'screenshots'].includes(entry.name))
      .map((entry) => entry.name)
      .sort();
    const named = [...testLayout.matchAll(/(?<![\w/.-])([a-z]+)\/(?=\s)/g)].map((match) => match[1]!).sort();
    expect(named).toEqual(folders);
  });

  it('names no file that is not there', () => {
    const names = new Set(sources.map((file) => file.split('/').at(-1)!));
    const mentioned = [...layout.matchAll(/(?<![\w>.-])([a-z][a-z.-]*\.(?:ts|mjs))\b/g)].map(
      (match) => match[1]!,
    );
    expect(mentioned.filter((name) => !names.has(name))).toEqual([]);
  });
});
