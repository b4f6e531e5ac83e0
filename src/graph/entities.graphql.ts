// The graph as an Apollo Federation v2 subgraph (issue 57; docs/federation.md): the entities and their natural
// keys, `_entities` (a gateway finding objects again by key) and `_service` (the SDL a gateway composes).
// `_entities` and `_service` are declared here rather than taken as the federation plugin makes them, so they
// are fields like every other: their auth scopes (the auth gate answers 401 and 403 before anything runs),
// their rules (zod, errors named by path), their size for the query cost, their descriptions.
import { entitiesResolver } from '@apollo/subgraph/dist/types.js';
import { z } from 'zod';
import { AccountType } from '../accounts/accounts.graphql.ts';
import { SpecialEventType } from '../events/events.graphql.ts';
import { builder } from '../graphql/builder.ts';
import { MAX_REPRESENTATIONS, ServiceType, subgraphSdl } from '../graphql/federation.ts';
import { selects } from '../graphql/look-ahead.ts';
import { parseGlobalId } from '../graphql/node.ts';
import { costRefusal } from '../graphql/query-limits.ts';
import { isUuid } from '../graphql/scalars.ts';
import { MuseumDayType } from '../hours/hours.graphql.ts';
import { OrderType } from '../orders/orders.graphql.ts';
import { loadGeneralRemaining } from '../tickets/ticket-loads.ts';
import { TicketType } from '../tickets/tickets.graphql.ts';
import { lookUp } from './lookups.ts';

/** A key that is a UUID, written as the database answers it (lower case), so batched reads find it. */
const uuidKey = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required: a UUID' : 'must be a UUID') })
  .refine(isUuid, 'must be a UUID')
  .transform((key) => key.toLowerCase());

const ENTITY_KEYS = [
  z.object({ __typename: z.literal('SpecialEvent'), eventId: uuidKey }),
  z.object({ __typename: z.literal('Ticket'), ticketId: uuidKey }),
  z.object({ __typename: z.literal('Order'), orderId: uuidKey }),
  z.object({
    __typename: z.literal('MuseumDay'),
    date: z.iso.date({
      error: (issue) =>
        issue.input === undefined
          ? 'is required: a date YYYY-MM-DD'
          : 'must be a calendar date YYYY-MM-DD that exists',
    }),
  }),
  z.object({
    __typename: z.literal('Account'),
    id: z
      .string({ error: 'must be the global id of an Account (Account.id)' })
      .refine(
        (id) => parseGlobalId(id)?.type === 'Account',
        'must be the global id of an Account (Account.id)',
      ),
  }),
] as const;

const ENTITY_TYPES = ENTITY_KEYS.map((key) => key.shape.__typename.value);

/** `_entities`' rules: a list of at most 100 representations, each an entity type's `__typename` and key. */
const representationsSchema = z.object({
  representations: z
    .array(
      z.discriminatedUnion('__typename', ENTITY_KEYS, {
        error: (issue) =>
          issue.code === 'invalid_union' ? `must be one of ${ENTITY_TYPES.join(', ')}` : undefined,
      }),
    )
    .max(MAX_REPRESENTATIONS, `must hold at most ${MAX_REPRESENTATIONS} representations`),
});

/** A copy of what a representation's key found: `_entities` marks each object it answers with its type. */
async function copied<T extends object>(found: Promise<T | null> | null): Promise<T | null> {
  const object = await found;
  return object ? { ...object } : null;
}

builder.asEntity(SpecialEventType, {
  key: builder.selection<{ eventId: string }>('eventId'),
  resolveReference: ({ eventId }, context) => copied(lookUp.SpecialEvent(eventId, context)),
});

builder.asEntity(TicketType, {
  key: builder.selection<{ ticketId: string }>('ticketId'),
  resolveReference: ({ ticketId }, context) => copied(lookUp.Ticket(ticketId, context)),
});

builder.asEntity(OrderType, {
  key: builder.selection<{ orderId: string }>('orderId'),
  resolveReference: ({ orderId }, context) => copied(lookUp.Order(orderId, context)),
});

// The global id, as node(id) takes it: the account's UUID is not a field of its own. `_entities`' rules let
// only an Account's global id through.
builder.asEntity(AccountType, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: ({ id }, context) => copied(lookUp.Account(parseGlobalId(id)!.key, context)),
});

const REMAINING = ['remaining'];

// A day's general admission left is read when selected, with the other days' (as museumHours reads it).
builder.asEntity(MuseumDayType, {
  key: builder.selection<{ date: string }>('date'),
  resolveReference: async ({ date }, context, info) => {
    const day = await copied(lookUp.MuseumDay(date, context));
    const capacity = context.deps.config.dailyCapacity;
    if (day && selects(info, REMAINING))
      day.remaining =
        capacity === null
          ? null
          : await loadGeneralRemaining(context.deps.db.sql, context.shared, date, capacity);
    return day;
  },
});

const EntityUnion = builder.unionType('_Entity', {
  description: 'Every entity of this subgraph: what `_entities` answers.',
  types: [AccountType, MuseumDayType, OrderType, SpecialEventType, TicketType],
  resolveType: (entity) => (entity as { __typename?: string }).__typename ?? null,
});

builder.queryFields((t) => ({
  _entities: t.field({
    type: [EntityUnion],
    nullable: { list: false, items: true },
    description: `For a gateway (Apollo Federation): the entities of at most ${MAX_REPRESENTATIONS} representations, in their order, each as its type's own root field shows it to you (\`specialEvent\`, \`ticket\`, \`order\`, \`museumHours\`, \`me\` or \`node\`): null where that field would answer null or refuse.`,
    authScopes: { authenticated: true },
    args: {
      representations: t.arg({
        type: ['_Any'],
        description: `At most ${MAX_REPRESENTATIONS}: each \`__typename\` and the fields of its @key, such as \`{"__typename": "SpecialEvent", "eventId": "…"}\` (other fields are ignored).`,
      }),
    },
    extensions: { listSize: MAX_REPRESENTATIONS },
    validate: representationsSchema,
    // Each type's resolveReference (above) reads its key, batched with the others of its type.
    resolve: (_root, { representations }, context, info) => {
      const overCost = costRefusal(info);
      if (overCost) throw overCost;
      return entitiesResolver({ representations, context, info });
    },
  }),
  _service: t.field({
    type: ServiceType,
    description:
      "For composition (Apollo Federation): this subgraph's schema, as a gateway composes it. Needs credentials, as every field.",
    authScopes: { authenticated: true },
    resolve: (_root, _args, _context, info) => ({ sdl: subgraphSdl(info.schema) }),
  }),
}));
