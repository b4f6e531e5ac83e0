import { z } from 'zod';
import { paginationSchema } from '../common/pagination.ts';

/** A buyer named by address (the EmailAddress scalar has checked its form). */
export const buyerSchema = z.object({
  email: z.string().max(254, 'must be at most 254 characters'),
});

/** Personal data of visits is kept this many days after the visit unless MUSEUM_RETENTION_DAYS says otherwise. */
export const DEFAULT_RETENTION_DAYS = 90;

/** The record's filter (an address, by its hash) and its page. */
export const requestsSchema = paginationSchema.extend({
  email: z.string().max(254, 'must be at most 254 characters').nullish(),
});
