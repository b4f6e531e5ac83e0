// The README and the pages of docs/ walked as a newcomer walks them: in a clean directory holding only the
// project's own files (what a fresh clone has; node_modules linked in, as `npm ci` would have made it), the
// server is started the way the README says, and the shell examples run as written (port aside), every curl
// failing on any 4xx or 5xx. Then the account commands run on the database that start left behind. Every
// shell example of the documentation is either run here, run by another test, or named below with the
// reason none runs it as pasted (the PostgreSQL and production examples, for one).
// Then the layout of docs/development.md is checked against the folders of src/ and test/.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks, DOC_PAGES, root, sectionTitles } from './support/docs.ts';
import { freePort } from './support/server.ts';

/** The sections whose every shell example must succeed when pasted. */
const PASTED = [
  ['README.md', 'Trying it'],
  ['docs/api.md', 'Tickets that hold under load'],
  ['docs/api.md', 'A sale: prices, timed entry, the report'],
  ['docs/api.md', 'A page in one query: the graph'],
  ['docs/api.md', 'Parts first: @defer and @stream'],
  ['docs/federation.md', "The subgraph's SDL"],
  // After the README's purchases: their mails are in .data/mail/.
  ['docs/mail.md', 'Without a mail server'],
  // Last: the erasure forgets the README's buyer.
  ['docs/privacy.md', 'Exports'],
  ['docs/privacy.md', 'Erasure'],
] as const;
/** Run here with checks of their own, one example each. */
const CONDITIONAL = ['docs/api.md', 'Caching, safe edits and trusted documents'] as const;
const ACCOUNTS = ['docs/api.md', 'Accounts'] as const;
/** Its examples in one shell, as a reader pastes them one after the other; the last is a refusal (409). */
const VISIT = ['docs/api.md', 'A visit: orders, the door, cancellation'] as const;
/** The other sections with shell examples, and why this file does not run them. */
const NOT_WALKED: Record<string, string> = {
  'README.md § (introduction)':
    'npm ci and npm test are what runs this file; its npm start is how it starts the server',
  'docs/api.md § Typed clients, from the repository alone':
    'npx would fetch openapi-typescript from the registry',
  'docs/live.md § Webhooks':
    'partner.example is not a host a delivery may reach, and $ID is the id its answer gave',
  'docs/live.md § The specialEventPublished subscription':
    'test/events/live.test.ts runs it (curl -N never ends)',
  "docs/payments.md § Trying it in Stripe's test mode":
    'they need a Stripe account and the Stripe CLI; test/payments/ runs the same flow against a Stripe look-alike',
  'docs/mail.md § Sending through SMTP':
    'smtp.museum.example is no server; test/mail/mail.test.ts sends through a real SMTP server in its process',
  'docs/mail.md § A local mail catcher': 'docker and the Mailpit image are not on this machine',
  'docs/federation.md § Composing':
    "the hive and rover CLIs are not installed; test/federation/gateway.test.ts runs this section's compose.mjs",
  'docs/operations.md § Running on PostgreSQL':
    'they need a PostgreSQL server, which this file does not start',
  'docs/operations.md § Running in production': 'npm ci, and a server on a database host named db',
  'docs/operations.md § Behind a transaction pooler':
    'test/db/pooler.test.ts starts a server with its variables, on the pooler and server of a run through one',
  'docs/operations.md § Read replicas':
    'test/db/replicas.test.ts starts a server with its variables, on a standby it makes of the test server',
};

const key = (page: string, title: string | null) => `${page} § ${title ?? '(introduction)'}`;

let directory: string;
let port: number;
let server: ChildProcess;
let output = '';

/** Runs a documentation example under bash in the clean directory: each command must succeed. */
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

describe('the README and docs/, walked in a clean directory', () => {
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
    const [start] = codeBlocks('README.md', null, 'sh').slice(1);
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
    PASTED.flatMap(([page, section]) =>
      codeBlocks(page, section, 'sh').map((block, n) => [page, section, n + 1, block] as const),
    ),
  )('%s "%s", example %i, works when pasted', (_page, _section, _n, block) => {
    const run = walk(block);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('docs/api.md "Caching, safe edits and trusted documents" works when pasted: 304, then the edit under If-Match', () => {
    const [conditional] = codeBlocks(...CONDITIONAL, 'sh');
    const run = walk(conditional!);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^304$/m);
    expect(run.stdout).toContain('"price":40');
  });

  it('docs/api.md "A visit" works when pasted: an order, its QR code, a cancellation, a scan admitted, the second refused', () => {
    const blocks = codeBlocks(...VISIT, 'sh');
    expect(blocks).toHaveLength(2);
    // Every curl of the first must succeed; the second's is the refusal, so its status is printed instead.
    const run = walk(`${blocks[0]}
curl() { command curl -sS -w '%{http_code}' "$@"; }
${blocks[1]}`);
    expect(run.stderr, run.stdout).toBe('');
    expect(run.status).toBe(0);
    const order = JSON.parse(readFileSync(join(directory, 'order.json'), 'utf8'));
    expect(order.tickets).toHaveLength(4);
    expect(readFileSync(join(directory, 'ticket-1.png')).subarray(1, 4).toString()).toBe('PNG');
    expect(run.stdout).toContain(`"ticketId":"${order.tickets[0].ticketId}"`);
    expect(run.stdout).toMatch(/"status":"used","checkedInAt":"([^"]+)"/);
    const admittedAt = /"checkedInAt":"([^"]+)"/.exec(run.stdout)![1];
    expect(run.stdout).toContain(`"detail":"already checked in at ${admittedAt}"`);
    expect(run.stdout.trimEnd()).toMatch(/409$/);
  });

  it('docs/api.md "Accounts" works when pasted, on the database npm start left (the server stopped first)', async () => {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    process.kill(-server.pid!, 'SIGTERM');
    await exited;
    const [accounts] = codeBlocks(...ACCOUNTS, 'sh');
    const run = walk(accounts!);
    // npm's own warnings about this machine's npmrc aside.
    expect(run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('npm warn'))).toEqual([]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^added ana \(visitor\) with password: \S+$/m);
    expect(run.stdout).toMatch(/^admin\tstaff$/m);
    expect(run.stdout).toMatch(/^unlocked ana/m);
  }, 120_000);
});

describe('the shell examples of the documentation', () => {
  const sections = DOC_PAGES.flatMap((page) =>
    sectionTitles(page)
      .filter((title) => codeBlocks(page, title, 'sh').length > 0)
      .map((title) => key(page, title)),
  );

  it('are each run here, or named with the reason they are not', () => {
    const accounted = [...PASTED, CONDITIONAL, ACCOUNTS, VISIT].map(([page, title]) => key(page, title));
    expect(sections.filter((section) => !accounted.includes(section) && !(section in NOT_WALKED))).toEqual(
      [],
    );
    // No reason outlives its example.
    expect(Object.keys(NOT_WALKED).filter((section) => !sections.includes(section))).toEqual([]);
  });

  it('hold one example where this file runs the first only', () => {
    expect(codeBlocks(...CONDITIONAL, 'sh')).toHaveLength(1);
    expect(codeBlocks(...ACCOUNTS, 'sh')).toHaveLength(1);
  });
});

describe("docs/development.md's layout", () => {
  const [block] = codeBlocks('docs/development.md', 'Layout', '');
  /** The layout's rows: a tree (src or test), the left column, and what the row says of it. */
  const rows: { tree: string; left: string; description: string }[] = [];
  let tree = '';
  for (const line of block!.split('\n')) {
    if (/^\S/.test(line)) tree = line.replace(/\/$/, '');
    else if (/^ {2}\S/.test(line)) {
      const [left, ...rest] = line.slice(2).split(/\s{2,}/);
      rows.push({ tree, left: left!, description: rest.join(' ') });
    } else if (rows.length > 0) rows.at(-1)!.description += ` ${line.trim()}`;
  }
  const files = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'test'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter((file) => file !== '' && existsSync(join(root, file)));

  it('describes every folder of src/ and test/, and no other', () => {
    const folders = new Set<string>();
    for (const file of files) {
      for (let folder = dirname(file); folder.includes('/'); folder = dirname(folder)) folders.add(folder);
    }
    const described = rows.flatMap(({ tree, left, description }) =>
      left
        .split(/[\s,]+/)
        .filter((name) => /^[a-z][\w-]*(\/[a-z][\w-]*)*\/$/.test(name))
        .map((name) => ({ folder: `${tree}/${name.slice(0, -1)}`, description: description.trim() })),
    );
    expect(described.map(({ folder }) => folder).sort()).toEqual([...folders].sort());
    expect(described.filter(({ description }) => description === '')).toEqual([]);
  });

  it('names no file that is not there', () => {
    const names = new Set(files.map((file) => file.split('/').at(-1)!));
    const mentioned = [...block!.matchAll(/(?<![\w>.*-])([a-z][\w.-]*\.(?:ts|mjs))\b/g)].map(
      (match) => match[1]!,
    );
    expect(mentioned.length).toBeGreaterThan(0);
    expect(mentioned.filter((name) => !names.has(name))).toEqual([]);
  });
});
