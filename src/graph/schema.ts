import {
  GraphQLDeferDirective,
  GraphQLStreamDirective,
  printSchemaWithDirectives,
} from '@graphql-tools/utils';
import { specifiedDirectives } from 'graphql';
import { builder } from '../graphql/builder.ts';
import { FEDERATION_DIRECTIVES, FEDERATION_LINK } from '../graphql/federation.ts';
import '../graphql/scalars.ts';
import '../hours/hours.graphql.ts';
import '../hours/entry-slots.graphql.ts';
import '../prices/prices.graphql.ts';
import '../events/events.graphql.ts';
import '../tickets/tickets.graphql.ts';
import '../accounts/accounts.graphql.ts';
import '../orders/orders.graphql.ts';
import '../orders/ticket-purchase.graphql.ts';
import '../check-ins/check-ins.graphql.ts';
import '../reports/sales.graphql.ts';
import '../webhooks/webhooks.graphql.ts';
import './event-edges.graphql.ts';
import './museum-hours.graphql.ts';
import '../tickets/my-tickets.graphql.ts';
import '../privacy/privacy.graphql.ts';
import './nodes.graphql.ts';
import './entities.graphql.ts';

builder.queryType({ description: 'Every field needs HTTP Basic credentials of an account.' });
builder.mutationType({ description: 'Every field needs HTTP Basic credentials, some the staff role.' });
builder.subscriptionType({
  description: 'Server-sent events (`Accept: text/event-stream`); every field needs HTTP Basic credentials.',
});

// @defer and @stream (incremental delivery, as Apollo Client and Relay use it): where the transport can stream
// the parts (multipart/mixed, server-sent events, WebSocket) the runner delivers them incrementally; a plain
// JSON answer ignores them, as the spec lets a server do, and carries everything at once.
// The list replaces graphql-js's own: @skip, @include, @deprecated and @specifiedBy are named with them, and
// Federation's @link and @key (src/graphql/federation.ts). The federation plugin's toSubGraphSchema links
// Federation v2 on the schema and sorts it; `_entities` and `_service` are entities.graphql.ts's.
export const schema = builder.toSubGraphSchema({
  linkUrl: FEDERATION_LINK,
  federationDirectives: ['@key'],
  directives: [
    ...specifiedDirectives,
    GraphQLDeferDirective,
    GraphQLStreamDirective,
    ...FEDERATION_DIRECTIVES,
  ],
});

/**
 * The SDL kept in schema/schema.graphql, sorted so diffs stay small: the schema as served, with the directives
 * it is given (@link, each entity's @key), which graphql-js's printer leaves out.
 */
export const printedSchema = () => `${printSchemaWithDirectives(schema)}\n`;
