import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { lexicographicSortSchema, printSchema, specifiedDirectives } from 'graphql';
import { builder } from '../graphql/builder.ts';
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

builder.queryType({ description: 'Every field needs HTTP Basic credentials of an account.' });
builder.mutationType({ description: 'Every field needs HTTP Basic credentials, some the staff role.' });
builder.subscriptionType({
  description: 'Server-sent events (`Accept: text/event-stream`); every field needs HTTP Basic credentials.',
});

// @defer and @stream (incremental delivery, as Apollo Client and Relay use it): where the transport can stream
// the parts (multipart/mixed, server-sent events, WebSocket) the runner delivers them incrementally; a plain
// JSON answer ignores them, as the spec lets a server do, and carries everything at once.
// The list replaces graphql-js's own: @skip, @include, @deprecated and @specifiedBy are named with them.
export const schema = builder.toSchema({
  directives: [...specifiedDirectives, GraphQLDeferDirective, GraphQLStreamDirective],
});

/** The SDL kept in schema/schema.graphql, sorted so diffs stay small. */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;
