// node(id) and nodes(ids): any object with a global id (node.ts) fetched again, as its own root field shows it
// to the caller — null wherever that field would answer null (someone else's ticket) or refuse.
import { z } from 'zod';
import { MAX_PAGE_SIZE } from '../common/pagination.ts';
import type { RequestContext } from '../context.ts';
import { builder } from '../graphql/builder.ts';
import { asNode, NodeInterface, parseGlobalId } from '../graphql/node.ts';
import { lookUp } from './lookups.ts';

/** The object `id` names, if the caller may see it, marked with its type. */
async function findNode(id: string, context: RequestContext): Promise<object | null> {
  const named = parseGlobalId(id);
  return named ? asNode(named.type, await lookUp[named.type](named.key, context)) : null;
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeInterface,
    nullable: true,
    description:
      "The object a global id names, as its own root field would show it to you: null when there is none you may see (someone else's ticket, as `ticket(ticketId)`), or the id names nothing.",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ description: 'A global id, as the `id` field of an object answers it.' }) },
    resolve: (_root, { id }, context) => findNode(String(id), context),
  }),
  nodes: t.field({
    type: [NodeInterface],
    nullable: { list: false, items: true },
    description: `The objects of at most ${MAX_PAGE_SIZE} global ids, in their order, each as node(id) answers it.`,
    authScopes: { authenticated: true },
    args: {
      ids: t.arg.idList({
        description: `At most ${MAX_PAGE_SIZE} global ids, as the \`id\` fields of objects answer them.`,
      }),
    },
    validate: z.object({
      ids: z.array(z.unknown()).max(MAX_PAGE_SIZE, `must hold at most ${MAX_PAGE_SIZE} ids`),
    }),
    resolve: (_root, { ids }, context) => Promise.all(ids.map((id) => findNode(String(id), context))),
  }),
}));
