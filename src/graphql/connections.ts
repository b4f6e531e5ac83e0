// Relay cursor connections (https://relay.dev/graphql/connections.htm) over keyset reads: a page is the rows
// after (or before) a cursor's sort key, never an OFFSET, so a walk stays in step while rows are added. The
// types come from @pothos/plugin-relay (t.connection); the reads are the domains' (a KeysetRead).
import { resolveCursorConnection } from '@pothos/plugin-relay';
import { z } from 'zod';
import {
  type CursorKey,
  decodeCursor,
  encodeCursor,
  type Keyed,
  type KeysetPage,
  type KeysetWindow,
} from '../common/cursors.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../common/pagination.ts';

/** What first and last must be, as every refusal states it. */
const PAGE_SIZE_RULE = `must be an integer from 1 to ${MAX_PAGE_SIZE}`;
const pageSize = z.number().int(PAGE_SIZE_RULE).min(1, PAGE_SIZE_RULE).max(MAX_PAGE_SIZE, PAGE_SIZE_RULE);

/**
 * The rules of a connection field's arguments, besides those of `shape` (its range): first and last 1 to 30,
 * not both (the spec allows both but "strongly discourages" it, and no Relay or Apollo client sends both).
 * Cursors are checked by keysetConnection.
 */
export const connectionArgsSchema = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z
    .object({
      ...shape,
      first: pageSize.nullish(),
      last: pageSize.nullish(),
      after: z.string().nullish(),
      before: z.string().nullish(),
    })
    .refine((args) => (args as ConnectionArgs).first == null || (args as ConnectionArgs).last == null, {
      path: ['last'],
      message:
        'must not be given with first: page forwards with first and after, backwards with last and before',
    });

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

export interface KeysetList<T, K extends CursorKey> {
  /** The list and range the cursors belong to (and the owner, for a list of someone's own). */
  scope: string;
  /** The shape of the list's sort key, as a cursor must hold it. */
  key: z.ZodType<K>;
  read(window: KeysetWindow<K>): Promise<KeysetPage<T>>;
}

/**
 * A connection's answer for `args` (checked by connectionArgsSchema): the page, its pageInfo as
 * resolveCursorConnection reckons it, and the range's totalCount. Neither first nor last: the first 10.
 */
export async function keysetConnection<T, K extends CursorKey>(args: ConnectionArgs, list: KeysetList<T, K>) {
  const after = args.after == null ? undefined : decodeCursor(args.after, list.scope, list.key, 'after');
  const before = args.before == null ? undefined : decodeCursor(args.before, list.scope, list.key, 'before');
  let total = 0;
  const { edges, pageInfo } = await resolveCursorConnection<Promise<Keyed<T>[]>>(
    {
      args,
      defaultSize: DEFAULT_PAGE_SIZE,
      maxSize: MAX_PAGE_SIZE,
      toCursor: (row: Keyed<T>) => encodeCursor(list.scope, row.key),
    },
    async ({ limit, inverted }) => {
      const page = await list.read({ after, before, limit, backwards: inverted });
      total = page.total;
      return page.rows;
    },
  );
  return {
    edges: edges.map((edge) => ({ cursor: edge.cursor, node: edge.node.node })),
    // With no edge and no cursor given, resolveCursorConnection answers '': the spec's "no cursor" is null.
    pageInfo: {
      ...pageInfo,
      startCursor: pageInfo.startCursor || null,
      endCursor: pageInfo.endCursor || null,
    },
    totalCount: total,
  };
}

/** The description of a connection field's totalCount. */
export const TOTAL_COUNT = 'How many items the whole list (its range) has, over every page.';
