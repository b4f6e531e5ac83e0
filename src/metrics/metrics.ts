import type { Pool } from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { CHECK_IN_OUTCOMES, type CheckInOutcome } from '../check-ins/check-ins.rules.ts';
import type { Database } from '../db/database.ts';
import type { ReplicaStatus } from '../db/replicas.ts';
import type { MailCounts } from '../mail/mailer.ts';
import type { PaymentCounts } from '../payments/payments.ts';
import type { WebhookBacklog } from '../webhooks/webhooks.queries.ts';
import { Timings } from './timings.ts';

/** Distinct operation names kept as labels; beyond, `other`, so clients cannot create unbounded series. */
const MAX_OPERATION_NAMES = 100;
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Metrics {
  registry: Registry;
  /** Counts a finished request. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** Counts an executed GraphQL operation (REST routes run as operations too). */
  operation(name: string | undefined, type: string, seconds: number): void;
  /** Counts a ticket scanned at the door, by what became of it. */
  checkIn(outcome: CheckInOutcome): void;
  /** Counts a ticket sold (not an idempotent replay), by ticket type and visitor category. */
  ticketSold(ticketType: string, category: string): void;
  /** What the payments count: Stripe events by outcome, orders entering a status, refunds. */
  payments: PaymentCounts;
  /** Mails to buyers by kind and what became of an attempt. */
  mail: MailCounts;
}

/**
 * Prometheus metrics (prom-client): requests by method, route template and status; GraphQL operations by
 * name and type; the database pool; the live streams and the webhook backlog; Node's own (RSS,
 * event-loop lag, GC). Served at /metrics.
 */
export function createMetrics(
  db: Database,
  live: {
    openSubscriptions(): number;
    openWebSockets(): number;
    webhookBacklog(): Promise<WebhookBacklog>;
    mailBacklog(): Promise<number>;
  },
): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Timings(
    registry,
    {
      counter: 'http_requests_total',
      counterHelp: 'HTTP requests answered, by method, route template and status.',
      histogram: 'http_request_duration_seconds',
      histogramHelp: 'Time from a request to the end of its answer, by method, route template and status.',
    },
    DURATION_BUCKETS,
  );
  const operations = new Timings(
    registry,
    {
      counter: 'graphql_operations_total',
      counterHelp: 'GraphQL operations executed (REST routes included), by operation name and type.',
      histogram: 'graphql_operation_duration_seconds',
      histogramHelp: 'Execution time of GraphQL operations, by operation name and type.',
    },
    DURATION_BUCKETS,
  );

  const pool: Pool | undefined = db.pool;
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database connections of this instance, by state.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      if (!pool) return;
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'active' }, pool.totalCount - pool.idleCount);
    },
  });
  new Gauge({
    name: 'db_pool_waiting',
    help: 'Queries waiting for a database connection.',
    registers: [registry],
    collect() {
      if (pool) this.set(pool.waitingCount);
    },
  });

  new Gauge({
    name: 'live_subscriptions',
    help: 'Open specialEventPublished streams on this instance.',
    registers: [registry],
    collect() {
      this.set(live.openSubscriptions());
    },
  });
  new Gauge({
    name: 'websocket_connections',
    help: 'Open GraphQL-over-WebSocket sockets on this instance.',
    registers: [registry],
    collect() {
      this.set(live.openWebSockets());
    },
  });
  // The outbox is the database's, shared by every instance; one statement serves both gauges of a scrape.
  let backlog: { at: number; read: Promise<WebhookBacklog | null> } | undefined;
  const readBacklog = () => {
    if (!backlog || performance.now() - backlog.at > 1_000)
      backlog = { at: performance.now(), read: live.webhookBacklog().catch(() => null) };
    return backlog.read;
  };
  for (const [name, help, value] of [
    [
      'webhook_deliveries_pending',
      'Webhook messages not yet delivered that will be attempted (again), all instances together.',
      (read: WebhookBacklog) => read.pending,
    ],
    [
      'webhook_oldest_pending_seconds',
      'Age of the oldest webhook message still pending, all instances together; 0 when none is.',
      (read: WebhookBacklog) => read.oldestSeconds,
    ],
  ] as const)
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const read = await readBacklog();
        if (read) this.set(value(read));
      },
    });

  new Gauge({
    name: 'museum_mail_pending',
    help: 'Mails to buyers not sent yet (due, or waiting for their next attempt), all instances together.',
    registers: [registry],
    async collect() {
      const pending = await live.mailBacklog().catch(() => null);
      if (pending !== null) this.set(pending);
    },
  });

  // Read replicas (DATABASE_READ_URLS): each one's state as its last poll found it (src/db/replicas.ts).
  const { replicas } = db;
  if (replicas) {
    const perReplica = (name: string, help: string, value: (status: ReplicaStatus) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ['replica'] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const status of replicas.status()) {
            const measured = value(status);
            if (measured !== null) this.set({ replica: status.name }, measured);
          }
        },
      });
    perReplica('db_replica_up', 'Whether the read replica answers (1) or not (0).', (status) =>
      status.up ? 1 : 0,
    );
    perReplica(
      'db_replica_serving',
      'Whether the read replica serves reads (1), or is skipped (0): down, or lagging beyond DATABASE_REPLICA_MAX_LAG.',
      (status) => (status.serving ? 1 : 0),
    );
    perReplica(
      'db_replica_lag_seconds',
      'How far the read replica’s replay is behind the primary, in seconds (0 when it has replayed all).',
      (status) => status.lagSeconds,
    );
    perReplica(
      'db_replica_lag_bytes',
      'How far the read replica’s replay is behind the primary’s WAL position, in bytes.',
      (status) => status.lagBytes,
    );
    new Counter({
      name: 'db_stale_tolerant_reads_total',
      help: 'Reads that may be served by a replica, by where they went (primary: a writer’s, or no replica fit).',
      labelNames: ['target'] as const,
      registers: [registry],
      collect() {
        const reads = replicas.reads();
        this.reset();
        this.inc({ target: 'replica' }, reads.replica);
        this.inc({ target: 'primary' }, reads.primary);
      },
    });
  }

  const checkIns = new Counter({
    name: 'museum_check_ins_total',
    help: 'Tickets scanned at the door (POST /check-ins, checkIn) on this instance, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of CHECK_IN_OUTCOMES) checkIns.inc({ outcome }, 0);

  // Categories are the price list's (at most 20 at a time) and ticket types two: the series stay few.
  const ticketsSold = new Counter({
    name: 'museum_tickets_sold_total',
    help: 'Tickets sold on this instance (POST /tickets, POST /orders and their mutations), by ticket type and visitor category.',
    labelNames: ['ticket_type', 'category'] as const,
    registers: [registry],
  });

  // Event types are Stripe's (only verified events are counted by type), outcomes and statuses the service's.
  const stripeEvents = new Counter({
    name: 'museum_stripe_events_total',
    help: "Stripe webhook requests (POST /payments/stripe) on this instance, by event type and what they did; a bad signature counts as type 'unverified'.",
    labelNames: ['type', 'outcome'] as const,
    registers: [registry],
  });
  const orderStatuses = new Counter({
    name: 'museum_orders_total',
    help: 'Orders that entered a status on this instance (pending, confirmed, expired, cancelled, refunded), with MUSEUM_PAYMENTS=stripe.',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const refunds = new Counter({
    name: 'museum_refunds_total',
    help: 'Refund attempts through Stripe on this instance: succeeded, failed (Stripe refused: needs a person), retry (no answer; tried again later).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  const mails = new Counter({
    name: 'museum_mails_total',
    help: 'Attempts to send a mail to a buyer on this instance, by kind (tickets, cancellation, refund, expired) and outcome: sent, failed (given up), retry (tried again later).',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });

  const names = new Set<string>();
  const labelOf = (name: string | undefined) => {
    if (!name) return 'anonymous';
    if (names.has(name)) return name;
    if (names.size >= MAX_OPERATION_NAMES) return 'other';
    names.add(name);
    return name;
  };

  const operationKeys = new SeriesKeys();
  const requestKeys = new SeriesKeys();
  const recordOperation = (name: string | undefined, type: string, seconds: number) => {
    const operationName = labelOf(name);
    operations.record(
      operationKeys.of(operationName, type, ''),
      () => ({ operation_name: operationName, operation_type: type }),
      seconds,
    );
  };

  return {
    registry,
    // The label sets are bounded: routes are templates, methods node's, statuses and operation names capped.
    request(method, route, status, seconds) {
      requests.record(
        requestKeys.of(route, method, status),
        () => ({ method, route, status: String(status) }),
        seconds,
      );
    },
    operation: recordOperation,
    checkIn: (outcome) => checkIns.inc({ outcome }),
    ticketSold: (ticketType, category) => ticketsSold.inc({ ticket_type: ticketType, category }),
    payments: {
      stripeEvent: (type, outcome) => stripeEvents.inc({ type, outcome }),
      orderStatus: (status) => orderStatuses.inc({ status }),
      refund: (outcome) => refunds.inc({ outcome }),
    },
    mail: (kind, outcome) => mails.inc({ kind, outcome }),
  };
}

/**
 * The key of a series, the same string each time for the same labels: a key built anew for every request
 * was hashed anew by the Map it looks up. The labels are bounded (route templates, node's methods, statuses,
 * capped operation names), and so are the keys.
 */
class SeriesKeys {
  private readonly keys = new Map<string, Map<string, Map<string | number, string>>>();

  of(first: string, second: string, third: string | number): string {
    let seconds = this.keys.get(first);
    if (!seconds) {
      seconds = new Map();
      this.keys.set(first, seconds);
    }
    let thirds = seconds.get(second);
    if (!thirds) {
      thirds = new Map();
      seconds.set(second, thirds);
    }
    let key = thirds.get(third);
    if (key === undefined) {
      key = `${first} ${second} ${third}`;
      thirds.set(third, key);
    }
    return key;
  }
}
