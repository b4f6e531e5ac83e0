import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * One visitor category of the price list (adult, child, reduced, …) and what its general admission costs, in
 * hundredths of the museum's currency (src/common/money.ts). `position` keeps the order staff listed them in.
 */
export const PriceCategory = defineEntity({
  name: 'PriceCategory',
  tableName: 'price_category',
  properties: {
    category: p.string().length(32).primary(),
    name: p.string().length(100),
    generalAdmission: p.integer(),
    position: p.smallint(),
  },
  checks: [
    { name: 'price_category_category_check', expression: `"category" ~ '^[a-z0-9-]+$'` },
    {
      name: 'price_category_general_admission_check',
      expression: '(general_admission >= 0) AND (general_admission <= 100000000)',
    },
  ],
});

export type PriceCategory = InferEntity<typeof PriceCategory>;
