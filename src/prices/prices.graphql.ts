import { MAX_PRICE, toAmount } from '../common/money.ts';
import { withinArgument } from '../graphql/argument-errors.ts';
import { builder } from '../graphql/builder.ts';
import type { PriceCategoryView } from './prices.queries.ts';
import { DEFAULT_CATEGORY, MAX_CATEGORIES, type PriceListInput, priceListSchema } from './prices.rules.ts';
import { readPriceList, setPriceList } from './prices.service.ts';

export const CATEGORY_DESCRIPTION =
  'A visitor category of the price list (`adult`, `child`, `reduced`, …): lowercase letters, digits and -.';

const PriceCategoryType = builder.objectRef<PriceCategoryView>('PriceCategory').implement({
  description: 'One visitor category and what its general admission costs.',
  fields: (t) => ({
    category: t.exposeString('category', { description: CATEGORY_DESCRIPTION }),
    name: t.exposeString('name', { description: 'What visitors read: "Adult", "Child (6–17)", …' }),
    generalAdmission: t.float({
      description: 'The price of a general admission ticket in this category, in the currency of the list.',
      resolve: (category) => toAmount(category.generalAdmission),
    }),
  }),
});

interface PriceList {
  currency: string;
  categories: PriceCategoryView[];
}

const PriceListType = builder.objectRef<PriceList>('PriceList').implement({
  description: 'What a visit costs, by visitor category.',
  fields: (t) => ({
    currency: t.exposeString('currency', { description: 'ISO 4217 code of every amount (MUSEUM_CURRENCY).' }),
    categories: t.expose('categories', {
      type: [PriceCategoryType],
      extensions: { listSize: MAX_CATEGORIES },
      description: 'In the order staff listed them.',
    }),
  }),
});

const PriceCategoryInput = builder.inputType('PriceCategoryInput', {
  description: 'One category of a new price list.',
  fields: (t) => ({
    category: t.string({ description: `${CATEGORY_DESCRIPTION} At most 32 characters, each once per list.` }),
    name: t.string({ description: 'Not blank, at most 100 characters.' }),
    generalAdmission: t.float({ description: `0 to ${MAX_PRICE}, at most 2 decimals.` }),
  }),
});

export const SetPriceListInput = builder.inputType('SetPriceListInput', {
  description: `A whole new price list: 1 to ${MAX_CATEGORIES} categories, ${DEFAULT_CATEGORY} among them (the category of a purchase that names none).`,
  fields: (t) => ({
    categories: t.field({
      type: [PriceCategoryInput],
      description: 'Each category once, in the order priceList will answer them.',
    }),
  }),
  validate: priceListSchema,
});

builder.queryField('priceList', (t) =>
  t.field({
    type: PriceListType,
    description: 'The price list: each visitor category and its general admission price (REST: GET /prices).',
    authScopes: { authenticated: true },
    resolve: async (_root, _args, { deps }) => ({
      currency: deps.config.currency,
      categories: await readPriceList(deps.db.sql),
    }),
  }),
);

builder.mutationField('setPriceList', (t) =>
  t.field({
    type: PriceListType,
    description:
      'Replaces the price list (staff only; REST: PUT /prices). Tickets sold keep the category and price they were sold at. A category that an event still gives a price of its own cannot be left out (CONFLICT naming input.categories): change the event first.',
    authScopes: { staff: true },
    args: { input: t.arg({ type: SetPriceListInput, description: 'The whole new price list.' }) },
    // The validation plugin has checked input against priceListSchema.
    resolve: async (_root, { input }, { deps }) => ({
      currency: deps.config.currency,
      categories: await withinArgument('input', () => setPriceList(deps.db.sql, input as PriceListInput)),
    }),
  }),
);
