// An object of the graph found again by its key, for node(id) and nodes(ids) (nodes.graphql.ts) and for a
// gateway's `_entities` (entities.graphql.ts): as the type's own root field shows it to the caller, and null
// wherever that field would answer null (someone else's ticket or order) or refuse (a gate account's events).
// Each read is batched per request, so the keys of one type that a level of a query asks for cost one statement.
import { loadAccount } from '../accounts/account-loads.ts';
import type { Principal } from '../accounts/authenticator.ts';
import type { RequestContext } from '../context.ts';
import { loadEvent } from '../events/event-loads.ts';
import { scopesOf } from '../graphql/auth-scopes.ts';
import type { NodeTypeName } from '../graphql/node.ts';
import { loadOpenDay } from '../hours/day-loads.ts';
import { loadOrder } from '../orders/order-loads.ts';
import { loadTicket } from '../tickets/ticket-loads.ts';
import { getSubscription } from '../webhooks/webhooks.service.ts';

/** The types found again by a key: those with a global id (by its UUID), and the days (by date). */
export type KeyedType = NodeTypeName | 'MuseumDay';

// Every field that looks up by key needs an account (its authScopes), so the principal is there.
const viewerOf = ({ principal }: RequestContext) => principal as Principal;

/** For each type, the object whose key is `key` if the caller may see it, else null. */
export const lookUp = {
  SpecialEvent: (key: string, context: RequestContext) =>
    scopesOf(context.principal).visitor ? loadEvent(context.deps.db.sql, context.shared, key) : null,
  Ticket: (key: string, context: RequestContext) =>
    loadTicket(context.deps.db.sql, context.shared, viewerOf(context), key),
  Account: (key: string, context: RequestContext) =>
    loadAccount(context.deps.db.sql, context.shared, viewerOf(context), key),
  Order: (key: string, context: RequestContext) =>
    scopesOf(context.principal).visitor
      ? loadOrder(context.deps.db.sql, context.shared, viewerOf(context), key)
      : null,
  WebhookSubscription: (key: string, context: RequestContext) =>
    scopesOf(context.principal).staff ? getSubscription(context.deps.db.sql, key) : null,
  MuseumDay: (key: string, context: RequestContext) =>
    scopesOf(context.principal).visitor ? loadOpenDay(context.deps.db.sql, context.shared, key) : null,
} satisfies Record<KeyedType, (key: string, context: RequestContext) => Promise<object | null> | null>;
