import { z } from 'zod';
import { priceSchema } from '../common/money.ts';
import { textField } from '../common/text.ts';

/** The category of a purchase that names none: every reference client buys in it, so the list keeps it. */
export const DEFAULT_CATEGORY = 'adult';

/** Categories on the price list, and per-category prices of one event, at most. */
export const MAX_CATEGORIES = 20;

const CATEGORY_RULE = 'must be 1 to 32 lowercase letters, digits or -';

/** A visitor category's key, as tickets, event prices and the sales report name it. */
export const categoryKey = z
  .string()
  .regex(/^[a-z0-9-]{1,32}$/, CATEGORY_RULE)
  .meta({ maxLength: 32 });

/** Issues for each entry whose `category` an earlier entry named already. */
function eachCategoryOnce(entries: { category: string }[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    if (seen.has(entry.category))
      ctx.addIssue({
        code: 'custom',
        path: [index, 'category'],
        message: `${entry.category} is listed twice`,
      });
    seen.add(entry.category);
  });
}

export const priceCategorySchema = z.object({
  category: categoryKey,
  name: textField(100),
  generalAdmission: priceSchema,
});

/** A whole new price list: 1 to 20 categories, each once, `adult` among them. */
export const priceListSchema = z.object({
  categories: z
    .array(priceCategorySchema)
    .min(1, 'must list at least one category')
    .max(MAX_CATEGORIES, `must list at most ${MAX_CATEGORIES} categories`)
    .superRefine(eachCategoryOnce)
    .refine((categories) => categories.some((entry) => entry.category === DEFAULT_CATEGORY), {
      message: `must include ${DEFAULT_CATEGORY}, the category of a purchase that names none`,
    }),
});

export type PriceListInput = z.infer<typeof priceListSchema>;

/** What some categories pay for an event instead of its price: each category once. */
export const eventPricesSchema = z
  .array(z.object({ category: categoryKey, price: priceSchema }))
  .max(MAX_CATEGORIES, `must list at most ${MAX_CATEGORIES} categories`)
  .superRefine(eachCategoryOnce);

export type EventPriceInput = z.infer<typeof eventPricesSchema>[number];
