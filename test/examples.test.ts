// examples/ as its reader uses it: the commands of examples/README.md pasted against a started server (a
// visitor account made, then the typed client run as that visitor), and `npm run examples:check` on the
// current schema files and on copies of them without something the client reads.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../src/common/dates.ts';
import { root } from './support/docs.ts';
import { basic, eventBody, todayUtc } from './support/museum.ts';
import { type RunningServer, spawnServerFor } from './support/server.ts';
import { useMuseum } from './support/use-museum.ts';

/** The account examples/README.md starts the server with. */
const ADMIN = { name: 'admin', password: 'change-me-now' };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME ?? tmpdir(), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The ```sh blocks of examples/README.md. */
const shellBlocks = () =>
  [...readFileSync(join(root, 'examples/README.md'), 'utf8').matchAll(/^```sh\n([\s\S]*?)^```/gm)].map(
    (match) => match[1]!,
  );

describe('the example client, run as examples/README.md says against a started server', () => {
  const museum = useMuseum();
  let server: RunningServer;
  const today = todayUtc();
  const tomorrow = addDays(today, 1);
  let event: { eventId: string; name: string; location: string; price: number };

  beforeAll(async () => {
    server = await spawnServerFor(museum, {
      MUSEUM_ADMIN_USER: ADMIN.name,
      MUSEUM_ADMIN_PASSWORD: ADMIN.password,
    });
    const create = async (body: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/special-events`, {
        method: 'POST',
        headers: { authorization: basic(ADMIN.name, ADMIN.password), 'content-type': 'application/json' },
        body: JSON.stringify(eventBody(body)),
      });
      if (response.status !== 201) throw new Error(`creating an event: ${await response.text()}`);
      return response.json();
    };
    // Tomorrow is in the client's range (today to 7 days after), the second date is not; nor is the
    // second event.
    event = await create({
      name: 'Pirate Coding Workshop',
      dates: [tomorrow, addDays(today, 9)],
      capacity: 10,
    });
    await create({ name: 'Later Lecture', dates: [addDays(today, 20)] });
  });
  afterAll(() => server?.stop());

  const ticketsOf = async (name: string, password: string) =>
    (await (
      await fetch(`${server.url}/tickets?limit=30`, { headers: { authorization: basic(name, password) } })
    ).json()) as { ticketId: string; eventId: string; ticketDate: string }[];

  it('lists the events with what is left, buys a ticket (one seat fewer), and finds it in my tickets', async () => {
    const [block, ...others] = shellBlocks();
    expect(others).toEqual([]);
    const pasted = await run(
      'bash',
      [
        '-c',
        `set -euo pipefail
curl() { command curl -sS --fail-with-body "$@"; }
${block!.replaceAll('127.0.0.1:4000', new URL(server.url).host)}`,
      ],
      { cwd: root },
    );
    expect(pasted.stderr).toBe('');
    expect(pasted.code).toBe(0);
    const lines = pasted.stdout.split('\n');

    expect(lines).toContain(`Events from ${today} to ${addDays(today, 7)}: 1`);
    expect(lines).toContain(`  ${event.name} (${event.location}, ${event.price}): ${tomorrow} 10 left`);
    const bought = lines
      .map((line) => /^Bought ticket (\S+) for (.+) on (\S+): /.exec(line))
      .find((match) => match !== null);
    expect(bought?.slice(2)).toEqual([event.name, tomorrow]);
    const ticketId = bought![1]!;
    expect(lines).toContain(`Now ${tomorrow}: 9 left`);
    expect(lines).toContain(`My tickets from ${today}: 1`);
    expect(lines).toContain(`  ${ticketId} ${tomorrow} ${event.name} valid`);

    // What the service holds agrees: the visitor the README made owns that ticket, and the date has 9 left.
    expect(await ticketsOf('ana', 'ana-password')).toEqual([
      expect.objectContaining({ ticketId, eventId: event.eventId, ticketDate: tomorrow }),
    ]);
    const availability = await (
      await fetch(`${server.url}/special-events/${event.eventId}/availability`, {
        headers: { authorization: basic('ana', 'ana-password') },
      })
    ).json();
    expect(availability).toContainEqual(expect.objectContaining({ date: tomorrow, remaining: 9 }));
  });

  it('ends with the service’s message and exit code 1 on a wrong password, having bought nothing', async () => {
    const before = await ticketsOf(ADMIN.name, ADMIN.password);
    const refused = await run('node', ['examples/client.ts'], {
      cwd: root,
      env: { MUSEUM_URL: server.url, MUSEUM_USER: ADMIN.name, MUSEUM_PASSWORD: 'not-the-password' },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('listing events: [GraphQL] Unknown account name or wrong password');
    expect(refused.stdout).toBe('');
    expect(await ticketsOf(ADMIN.name, ADMIN.password)).toEqual(before);
  });
});

describe('npm run examples:check', () => {
  it('passes on the current schema files', async () => {
    const check = await run('npm', ['run', '--silent', 'examples:check'], { cwd: root });
    expect(check.stderr + check.stdout).not.toMatch(/error/i);
    expect(check.code).toBe(0);
  }, 60_000);

  /** The check run in a copy of the project's example and schema files, the schema changed by `change`. */
  async function checkWithChangedSchema(change: (schemaDirectory: string) => void): Promise<Run> {
    const directory = mkdtempSync(join(tmpdir(), 'museum-examples-'));
    try {
      cpSync(join(root, 'package.json'), join(directory, 'package.json'));
      cpSync(join(root, 'schema'), join(directory, 'schema'), { recursive: true });
      cpSync(join(root, 'examples'), join(directory, 'examples'), {
        recursive: true,
        filter: (source) => !source.includes('/examples/generated'),
      });
      symlinkSync(join(root, 'node_modules'), join(directory, 'node_modules'), 'dir');
      change(join(directory, 'schema'));
      return await run('npm', ['run', '--silent', 'examples:check'], { cwd: directory });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }

  it('fails on a GraphQL schema without a field a document asks for, naming it', async () => {
    const check = await checkWithChangedSchema((schema) => {
      const file = join(schema, 'schema.graphql');
      const text = readFileSync(file, 'utf8');
      const renamed = text.replace(/(type EventDateAvailability \{[^}]*\n {2})remaining:/, '$1seatsLeft:');
      expect(renamed).not.toBe(text);
      writeFileSync(file, renamed);
    });
    expect(check.code).not.toBe(0);
    expect(check.stdout).toContain('Cannot query field "remaining" on type "EventDateAvailability"');
  }, 60_000);

  it('fails on an OpenAPI document whose answer lacks a property the client reads, naming it', async () => {
    const check = await checkWithChangedSchema((schema) => {
      const file = join(schema, 'openapi.json');
      const document = JSON.parse(readFileSync(file, 'utf8'));
      const confirmation = document.components.schemas.MuseumTicketsConfirmation;
      expect(confirmation.properties.ticketId).toBeDefined();
      confirmation.properties.id = confirmation.properties.ticketId;
      delete confirmation.properties.ticketId;
      confirmation.required = confirmation.required.map((name: string) =>
        name === 'ticketId' ? 'id' : name,
      );
      writeFileSync(file, JSON.stringify(document));
    });
    expect(check.code).not.toBe(0);
    expect(check.stdout).toMatch(
      /examples\/client\.ts\(\d+,\d+\): error TS2339: Property 'ticketId' does not exist/,
    );
  }, 60_000);
});
