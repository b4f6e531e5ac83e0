import { z } from 'zod';

export const MAX_PAGE_SIZE = 30;
export const DEFAULT_PAGE_SIZE = 10;

/** `page` ≥ 1 and `limit` 1…30, shared by every list, REST and GraphQL alike. */
export const paginationSchema = z.object({
  page: z.number().int().min(1, 'must be 1 or more').default(1),
  limit: z
    .number()
    .int()
    .min(1, 'must be 1 or more')
    .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
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

export const offsetOf = ({ page, limit }: Page) => (page - 1) * limit;
