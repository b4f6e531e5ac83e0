import type { GraphQLError } from 'graphql';
import { TOOK_TOO_LONG, withDeadline } from '../common/deadline.ts';
import { type FieldIssue, kindOfCode } from '../common/errors.ts';
import type { AppDeps } from '../context.ts';
import { type StripeEventReceipt, stripeEventBody } from '../payments/payments.rules.ts';
import { problemAnswer } from '../protocol/problem.ts';
import { type HttpAnswer, type HttpRequest, readJsonBody } from '../protocol/request.ts';

/** Where Stripe posts its events (docs/payments.md); the OpenAPI document's `receiveStripeEvent`. */
export const STRIPE_WEBHOOK_PATH = '/payments/stripe';

const JSON_NO_STORE = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

/** What a client may see of an error the payments threw: the same problem as any operation's. */
function problemOf(shown: GraphQLError): HttpAnswer {
  const kind = kindOfCode(shown.extensions.code) ?? 'internal';
  const issues = (shown.extensions.errors as FieldIssue[] | undefined) ?? [];
  const headers = (shown.extensions.http as { headers?: Record<string, string> } | undefined)?.headers;
  return problemAnswer(kind, shown.message, issues, headers ?? {});
}

/**
 * Stripe's webhook, a route of the HTTP lane rather than a field of the public schema: the body exactly as it
 * came (application/json, strict JSON, within BODY_LIMIT_BYTES, a JSON object) and the `Stripe-Signature`
 * header go to the payments, which verify the signature and apply the event once. No account: the signature
 * vouches for the event. 200 `{received, outcome}`; a bad or missing signature 400 naming `stripe-signature`;
 * 404 with MUSEUM_PAYMENTS=none; within the operations' deadline (503 past it). Errors are shown through
 * `mask`, the engine's error mask, so that they read as they did when this was a GraphQL mutation.
 */
export function stripeWebhook(
  deps: Pick<AppDeps, 'payments' | 'config'>,
  mask: (error: unknown) => Error,
): (request: HttpRequest) => Promise<HttpAnswer> {
  return async (request) => {
    if (request.method === 'OPTIONS') return { status: 204, headers: { Allow: 'OPTIONS, POST' }, body: null };
    if (request.method !== 'POST')
      return problemAnswer('methodNotAllowed', `${request.method} is not supported here; use POST`, [], {
        Allow: 'POST',
      });
    const body = await readJsonBody(request, 'The request body');
    if (!body.ok) return problemAnswer(body.kind, body.detail, body.issues, body.headers);
    if (!stripeEventBody.safeParse(body.value).success)
      return problemAnswer('validation', 'The request body must be a JSON object', [
        { path: '', message: 'must be a JSON object' },
      ]);
    const { payments } = deps;
    if (!payments) return problemAnswer('notFound', 'Payments are not taken here (MUSEUM_PAYMENTS=none)');
    // Outside an operation's scope, with read replicas too, every read goes to the primary (src/db/replicas.ts).
    try {
      const outcome = await withDeadline(
        payments.receive(body.text, request.header('stripe-signature')),
        deps.config.operationTimeoutMs,
      );
      if (outcome === null) return problemAnswer('unavailable', TOOK_TOO_LONG, [], { 'Retry-After': '5' });
      const receipt: StripeEventReceipt = { received: true, outcome };
      return { status: 200, headers: { ...JSON_NO_STORE }, body: JSON.stringify(receipt) };
    } catch (error) {
      return problemOf(mask(error) as GraphQLError);
    }
  };
}
