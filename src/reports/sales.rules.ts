import { z } from 'zod';
import { daysBetween } from '../common/dates.ts';

/** The longest range one sales report covers. */
export const MAX_REPORT_DAYS = 366;

export const salesReportArgsSchema = z
  .object({
    startDate: z.iso.date('must be a calendar date YYYY-MM-DD that exists'),
    endDate: z.iso.date('must be a calendar date YYYY-MM-DD that exists'),
  })
  .superRefine(({ startDate, endDate }, ctx) => {
    if (endDate < startDate)
      ctx.addIssue({
        code: 'custom',
        path: ['endDate'],
        message: `must not be before startDate (${startDate})`,
      });
    else if (daysBetween(startDate, endDate) + 1 > MAX_REPORT_DAYS)
      ctx.addIssue({
        code: 'custom',
        path: ['endDate'],
        message: `must be at most ${MAX_REPORT_DAYS} days from startDate, both included`,
      });
  });

export type SalesReportArgs = z.infer<typeof salesReportArgsSchema>;
