import type { ObjectRef } from '@pothos/core';
import { DEFAULT_PAGE_SIZE, type ListPage, MAX_PAGE_SIZE } from '../common/pagination.ts';
import { builder } from './builder.ts';

/** The `page` and `limit` arguments of every list field; their rules live in paginationSchema. */
export const pageArgs = builder.args((t) => ({
  page: t.int({ required: false, defaultValue: 1, description: 'Page number, from 1.' }),
  limit: t.int({
    required: false,
    defaultValue: DEFAULT_PAGE_SIZE,
    description: `Items per page, 1 to ${MAX_PAGE_SIZE}.`,
  }),
}));

/** The object type of one page of a list (`{items, total}`), as paged REST routes read it (`paged: 'items'`). */
type Types = typeof builder.$inferSchemaTypes;

export function pageType<T>(
  name: string,
  item: ObjectRef<Types, T>,
  descriptions: { type: string; items?: string; total?: string },
): ObjectRef<Types, ListPage<T>> {
  return builder.objectRef<ListPage<T>>(name).implement({
    description: descriptions.type,
    fields: (t) => ({
      items: t.field({ type: [item], description: descriptions.items, resolve: (page) => page.items }),
      total: t.exposeInt('total', { description: descriptions.total }),
    }),
  });
}
