import type { RequestListener } from 'node:http';
import { type Museum, openMuseum } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { DatabaseInUseError } from './db/database.ts';
import { isDatabaseUnreachable } from './graphql/errors.ts';
import { FRONT_PAGE_LINKS } from './http/front-page.ts';
import { createHttpServer } from './http/http-server.ts';
import { createLogger } from './logger.ts';
import { problemAnswer } from './protocol/problem.ts';
import { startTracing } from './tracing.ts';

// Started by src/start.mjs (which checks the Node version first). Reads the configuration, listens, opens
// the museum; on SIGTERM/SIGINT stops accepting, lets requests in
// flight finish, closes the database and exits 0. Every start-up failure is one line and exit code 1.

/** Ends start-up with one plain line: no stack trace, nothing half-started. */
function fail(line: string): never {
  console.error(line);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  fail(error.message);
}

const logger = createLogger(config.logLevel);
// Before the museum opens, so its first statements are traced too.
const stopTracing = await startTracing(config.otlpEndpoint ?? undefined);
let draining = false;
// Until the museum is open, every request is told to come back (the port is taken first, so a port in
// use stops start-up before any account is created or password printed).
const STARTING = problemAnswer('unavailable', 'The service is starting; try again shortly', [], {
  'Retry-After': '1',
  Connection: 'close',
});
let handle: RequestListener = (_req, res) => {
  res.writeHead(STARTING.status, STARTING.headers);
  res.end(STARTING.body);
};
const server = createHttpServer(config, logger, (req, res) => handle(req, res));

try {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    fail(`Port ${config.port} on ${config.host} is already in use: stop what holds it, or set PORT`);
  if (code === 'EACCES') fail(`No permission to listen on port ${config.port}: choose a PORT above 1023`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    fail(
      `HOST ${config.host} is not an address of this machine (${code}): set HOST, e.g. 127.0.0.1 or 0.0.0.0`,
    );
  fail(`Cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
}

/** Opens the museum, retrying while the database cannot be reached, for MUSEUM_DB_CONNECT_TIMEOUT seconds. */
async function openWithRetry(): Promise<Museum> {
  const deadline = Date.now() + config.dbConnectTimeoutSeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openMuseum(config, { logger, isDraining: () => draining });
    } catch (error) {
      if (error instanceof DatabaseInUseError) fail(error.message);
      if (!isDatabaseUnreachable(error)) fail(`Start-up failed: ${(error as Error).message.split('\n')[0]}`);
      if (Date.now() >= deadline)
        fail(
          `The database is unreachable (${(error as Error).message.split('\n')[0]}); gave up after ${config.dbConnectTimeoutSeconds} s (MUSEUM_DB_CONNECT_TIMEOUT)`,
        );
      logger.warn('database unreachable; trying again', { attempt });
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 250 * attempt)));
    }
  }
}

const museum = await openWithRetry();
// Start-up's garbage (migrations, building the schema, compiling the documents) is collected before the first
// request, by V8's memory-reducing collection, which also hands back the young generation that start-up grew:
// an idle instance holds ~20 MB less. `npm start` passes --expose-gc for it; elsewhere it is skipped.
globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
handle = museum.app.handleNode;
server.on('upgrade', (req, socket, head) => museum.app.websockets.handleUpgrade(req, socket, head));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
logger.info('museum api listening', { url: `http://${config.host}:${port}`, database: config.database.kind });
// The same for a person at the terminal, in plain words, with the pages to open.
const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
const origin = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
const width = Math.max(...FRONT_PAGE_LINKS.map((link) => link.href.length)) + origin.length + 2;
console.log(
  [
    `Museum API is listening on ${origin}/ (database: ${config.database.kind})`,
    ...FRONT_PAGE_LINKS.map((link) => `  ${`${origin}${link.href}`.padEnd(width)}${link.title}`),
  ].join('\n'),
);

async function shutdown(signal: string) {
  if (draining) return;
  draining = true;
  logger.info('shutting down', { signal });
  await museum.endStreams();
  server.close();
  // A connection whose answer ends after this (a stream just ended) would otherwise stay open, idle, for
  // keepAliveTimeout: each one is closed as soon as it is idle.
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  const force = setTimeout(() => server.closeAllConnections(), 10_000);
  force.unref();
  await new Promise<void>((resolve) => server.on('close', resolve));
  clearInterval(idle);
  // Operations abandoned after REQUEST_TIMEOUT_MS may still hold a connection; don't wait on them forever.
  const closed = await Promise.race([
    museum.close().then(() => true),
    new Promise<false>((resolve) => setTimeout(resolve, 10_000, false).unref()),
  ]);
  if (!closed) logger.warn('database did not close within 10 s; exiting anyway');
  await stopTracing?.().catch(() => {});
  logger.info('stopped');
  logger.flush();
  process.exit(0);
}

process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
