import { z } from 'zod';

export const MAX_PAGE_SIZE = 30;
export const DEFAULT_PAGE_SIZE = 10;

/** The paging rules in words, as every refusal states them (REST query strings included). */
export const PAGING_RULES = {
  page: 'must be an integer, 1 or more',
  limit: `must be an integer from 1 to ${MAX_PAGE_SIZE}`,
} as const;

/** `page` ≥ 1 and `limit` 1…30, shared by every list, REST and GraphQL alike. */
export const paginationSchema = z.object({
  page: z.number().int(PAGING_RULES.page).min(1, PAGING_RULES.page).default(1),
  limit: z
    .number()
    .int(PAGING_RULES.limit)
    .min(1, PAGING_RULES.limit)
    .max(MAX_PAGE_SIZE, PAGING_RULES.limit)
    .default(DEFAULT_PAGE_SIZE),
});

export interface Page {
  page: number;
  limit: number;
}

/** The page asked for; absent arguments take the defaults (validation has already checked the rest). */
export const pageOf = (args: { page?: number | null; limit?: number | null }): Page => ({
  page: args.page ?? 1,
  limit: args.limit ?? DEFAULT_PAGE_SIZE,
});

/** One page of a list, and how many items there are over all pages. */
export interface ListPage<T> {
  items: T[];
  total: number;
}

export const offsetOf = ({ page, limit }: Page) => (page - 1) * limit;
