import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../common/pagination.ts';
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
