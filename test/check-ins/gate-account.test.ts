// A door scanner's account (issue 27, C2): `npm run users -- add door1 --role gate`, then signing in with it.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openMuseum } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { recordedLogger } from '../support/leak-recording.ts';
import { basic, served } from '../support/museum.ts';

it('npm run users -- add door1 --role gate makes an account that checks tickets in and does nothing else', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'museum-gate-'));
  const users = (args: string[], input = '') =>
    spawnSync(process.execPath, [new URL('../../src/cli/users.ts', import.meta.url).pathname, ...args], {
      env: { PATH: process.env.PATH, MUSEUM_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      input,
      encoding: 'utf8',
    });
  try {
    const added = users(['add', 'door1', '--role', 'gate'], 'door1-password\n');
    expect(added.stderr).toBe('');
    expect(added.stdout).toBe('added door1 (gate)\n');
    expect(users(['list']).stdout).toBe('door1\tgate\n');

    const museum = await served(
      await openMuseum(loadConfig({ MUSEUM_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
        logger: recordedLogger(createLogger('silent')),
        announce: () => {},
      }),
    );
    try {
      const as = { authorization: basic('door1', 'door1-password'), 'content-type': 'application/json' };
      const me = await museum.fetch('http://museum.test/graphql', {
        method: 'POST',
        headers: as,
        body: JSON.stringify({ query: '{ me { name role } }' }),
      });
      expect(await me.json()).toEqual({ data: { me: { name: 'door1', role: 'gate' } } });
      const scan = await museum.fetch('http://museum.test/check-ins', {
        method: 'POST',
        headers: as,
        body: JSON.stringify({ confirmationCode: 'ticket-general-000000-00000' }),
      });
      expect(scan.status).toBe(404);
      const hours = await museum.fetch('http://museum.test/museum-hours', { headers: as });
      expect(hours.status).toBe(403);
    } finally {
      await museum.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}, 120_000);
