import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { nodeHttp } from '../common/node-http.ts';
import { workerLoop } from '../common/worker-loop.ts';
import type { Queryable } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import { ForbiddenTargetError, guardedLookup, isForbiddenLiteral } from './targets.ts';
import { ANY_SUBSCRIPTION, NEXT_DUE, RECORD_ATTEMPT, TAKE_DUE, type Taken } from './webhooks.queries.ts';
import { DELIVERY_TIMEOUT_MS, KEPT_RESPONSE_BYTES, retryDelaySeconds } from './webhooks.rules.ts';

/** Deliveries one worker takes at a time, and sends together. */
const BATCH = 10;
/**
 * How long a taken delivery is left to its worker before any worker may take it again: longer than an
 * attempt can last, so two workers never send one message at the same time; a worker that died mid-attempt
 * (kill -9) has its deliveries taken up again after this.
 */
const LEASE_SECONDS = DELIVERY_TIMEOUT_MS / 1000 + 5;
/** Work queued or retried by another instance is found this often even if its announcement was missed. */
const SAFETY_POLL_MS = 30_000;

export interface AttemptOutcome {
  /** The receiver's status, or null when none answered (refused, timed out, forbidden address). */
  status: number | null;
  /** The start of its body, or what went wrong. */
  response: string;
}

export interface Message {
  url: string;
  secret: string;
  webhookId: string;
  payload: string;
}

/** One signed POST of a message; never throws. */
export async function sendMessage(
  { url: target, secret, webhookId, payload }: Message,
  {
    allowPrivate,
    signal,
    timeoutMs = DELIVERY_TIMEOUT_MS,
  }: { allowPrivate: boolean; signal?: AbortSignal; timeoutMs?: number },
): Promise<AttemptOutcome> {
  const url = new URL(target);
  if (!allowPrivate && isForbiddenLiteral(url))
    return { status: null, response: `refused: ${url.hostname} is a private address` };
  const timestamp = new Date();
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(payload)),
    'user-agent': 'museum-api-webhooks',
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(webhookId, timestamp, payload),
  };
  const send = url.protocol === 'https:' ? httpsRequest : nodeHttp.request;
  return new Promise((resolve) => {
    let settled = false;
    let answered: number | null = null;
    const chunks: Buffer[] = [];
    const abandon = () => settle({ status: null, response: 'abandoned: shutting down' });
    const settle = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abandon);
      request.destroy();
      resolve(outcome);
    };
    // A fresh connection each time (no agent): its address goes through guardedLookup. Redirects are
    // not followed (node:http never does): a 3xx is an answer that is not 2xx.
    const request = send(
      url,
      { method: 'POST', headers, agent: false, ...(allowPrivate ? {} : { lookup: guardedLookup }) },
      (response: IncomingMessage) => {
        let kept = 0;
        answered = response.statusCode ?? null;
        const done = () =>
          settle({
            status: answered,
            response: Buffer.concat(chunks).subarray(0, KEPT_RESPONSE_BYTES).toString('utf8'),
          });
        response.on('data', (chunk: Buffer) => {
          if (kept < KEPT_RESPONSE_BYTES) chunks.push(chunk);
          kept += chunk.length;
          if (kept >= KEPT_RESPONSE_BYTES) done();
        });
        response.once('end', done);
        response.once('error', done);
      },
    );
    // The status is what counts: a receiver still sending its body when time is up has answered.
    const timer = setTimeout(
      () =>
        settle(
          answered === null
            ? { status: null, response: `no answer within ${timeoutMs / 1000} s` }
            : { status: answered, response: Buffer.concat(chunks).toString('utf8') },
        ),
      timeoutMs,
    );
    if (signal?.aborted) abandon();
    else signal?.addEventListener('abort', abandon, { once: true });
    request.once('error', (error) =>
      settle({
        status: null,
        response:
          error instanceof ForbiddenTargetError ? `refused: ${error.message}` : `failed: ${error.message}`,
      }),
    );
    request.end(payload);
  });
}

export interface Dispatcher {
  /** There may be new work (an event changed, here or on another instance). */
  wake(): void;
  /** A subscription was made or deleted on this instance. */
  subscriptionsChanged(): void;
  /** Stops taking work and abandons attempts under way (their leases run out; they are sent again). */
  close(): Promise<void>;
}

/**
 * The webhook worker of one instance: takes due deliveries from the outbox, sends them, records how each
 * went and when the next attempt is due. Every instance runs one; row locks (skip locked) and leases let
 * them share the outbox without sending one message twice at the same time. It looks for work at start,
 * when woken, and when the earliest retry it knows of is due; with other instances about, also every
 * SAFETY_POLL_MS (one of them may have died holding a lease, or its announcement may have been missed).
 * Alone on the embedded database it knows all the work there is, and skips looking while there is no
 * subscription.
 */
export function createDispatcher(options: {
  sql: Queryable;
  logger: Logger;
  retrySchedule: readonly number[];
  allowPrivate: boolean;
  /** The only instance on its database (the embedded one). */
  alone: boolean;
}): Dispatcher {
  const { sql, logger } = options;
  const shutdown = new AbortController();
  // Alone: whether a subscription exists (null: to be looked up).
  let subscribed: boolean | null = null;
  const loop = workerLoop({
    round: work,
    logger,
    name: 'webhook worker',
    // Alone on its database it knows all the work there is; else others' work is looked for this often.
    pollMs: options.alone ? null : SAFETY_POLL_MS,
  });

  async function attempt(taken: Taken): Promise<void> {
    const outcome = await sendMessage(
      { url: taken.url, secret: taken.secret, webhookId: taken.webhook_id, payload: taken.payload },
      { allowPrivate: options.allowPrivate, signal: shutdown.signal },
    );
    // Abandoned at shutdown: not an attempt that failed. The lease runs out and any instance sends it again.
    if (loop.closed) return;
    const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const retryIn = delivered ? null : retryDelaySeconds(options.retrySchedule, taken.attempts);
    const status = delivered ? 'delivered' : retryIn === null ? 'failed' : 'pending';
    await sql.query(RECORD_ATTEMPT, [taken.id, status, outcome.status, outcome.response, retryIn ?? 0]);
    if (status === 'failed')
      logger.warn('webhook delivery failed for good', {
        webhookId: taken.webhook_id,
        attempts: taken.attempts,
        lastStatus: outcome.status,
      });
  }

  async function work(): Promise<number | null | undefined> {
    if (options.alone && subscribed === null) {
      const [row] = await sql.query(ANY_SUBSCRIPTION, []);
      subscribed = row?.any ?? false;
    }
    if (options.alone && !subscribed) return undefined;
    for (;;) {
      const taken = await sql.query(TAKE_DUE, [BATCH, LEASE_SECONDS]);
      await Promise.all(taken.map(attempt));
      if (taken.length < BATCH) break;
    }
    const [next] = await sql.query(NEXT_DUE, []);
    return next?.seconds == null ? null : next.seconds * 1000;
  }

  loop.wake();
  return {
    wake: loop.wake,
    subscriptionsChanged() {
      subscribed = null;
    },
    async close() {
      const closing = loop.close();
      shutdown.abort();
      await closing;
    },
  };
}
