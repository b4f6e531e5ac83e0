import { createServer } from 'node:http';
import { type Museum, openMuseum } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { DatabaseInUseError } from './db/database.ts';
import { guardedListener } from './http/listener.ts';
import { createLogger } from './logger.ts';

// Reads the configuration, opens the museum, listens; on SIGTERM/SIGINT stops accepting, lets requests
// in flight finish, closes the database and exits 0.
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

const logger = createLogger(config.logLevel);
let draining = false;
let museum: Museum;
try {
  museum = await openMuseum(config, { logger, isDraining: () => draining });
} catch (error) {
  if (!(error instanceof DatabaseInUseError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const server = createServer(
  {
    // A client gets HTTP_HEADERS_TIMEOUT_MS (10 s) to send its headers and HTTP_REQUEST_TIMEOUT_MS (30 s)
    // for the whole request (slow-loris), then 408. Node checks them every connectionsCheckingInterval,
    // so a short interval keeps each within a quarter second of what it says.
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: 250,
    // Headers beyond 16 KiB are refused with 431 before the app sees them.
    maxHeaderSize: 16 * 1024,
  },
  guardedListener(museum.app.handleNode, {
    maxConcurrentRequests: config.maxConcurrentRequests,
    maxConcurrentRequestsPerClient: config.maxConcurrentRequestsPerClient,
    trustProxy: config.trustProxy,
    logger,
  }),
);
server.keepAliveTimeout = 5_000;
// Idle sockets are closed after a minute; a slow operation is bounded by REQUEST_TIMEOUT_MS (503).
server.timeout = 60_000;

server.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info('museum api listening', {
    url: `http://${config.host}:${port}`,
    database: config.database.kind,
  });
});

async function shutdown(signal: string) {
  if (draining) return;
  draining = true;
  logger.info('shutting down', { signal });
  server.close();
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 10_000);
  force.unref();
  await new Promise<void>((resolve) => server.on('close', resolve));
  // Operations abandoned after REQUEST_TIMEOUT_MS may still hold a connection; don't wait on them forever.
  const closed = await Promise.race([
    museum.close().then(() => true),
    new Promise<false>((resolve) => setTimeout(resolve, 10_000, false).unref()),
  ]);
  if (!closed) logger.warn('database did not close within 10 s; exiting anyway');
  logger.info('stopped');
  logger.flush();
  process.exit(0);
}

process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
