// Money is an integer of hundredths of the museum's currency (its minor unit: the currency has 2 decimals,
// config.ts checks it) from the database to the answer's last step, where it becomes a JSON number with at
// most 2 decimals. A float never holds an amount that is added up or stored.
import { z } from 'zod';

/** The most a ticket, an event or a category may cost, in whole currency units. */
export const MAX_PRICE = 1_000_000;

const hasAtMostTwoDecimals = (value: number) => Number(value.toFixed(2)) === value;

/** A price as clients send it: 0 to MAX_PRICE, at most 2 decimals. */
export const priceSchema = z
  .number()
  .min(0, 'must be 0 or more')
  .max(MAX_PRICE, `must be at most ${MAX_PRICE}`)
  .refine(hasAtMostTwoDecimals, 'must have at most 2 decimals')
  .meta({ multipleOf: 0.01 });

/** An amount of at most 2 decimals as an integer of hundredths (exact: it is rounded, not truncated). */
export const toMinorUnits = (amount: number): number => Math.round(amount * 100);

/**
 * Hundredths as the JSON number clients read: for any integer below 2^53, the shortest decimal that names
 * the nearest double of n/100 has at most 2 decimals.
 */
export const toAmount = (minorUnits: number): number => minorUnits / 100;

/** An ISO 4217 code whose amounts have 2 decimals (EUR, USD, GBP, CHF, …), as Intl knows currencies. */
export function isTwoDecimalCurrency(code: string): boolean {
  if (!/^[A-Z]{3}$/.test(code) || !Intl.supportedValuesOf('currency').includes(code)) return false;
  const format = new Intl.NumberFormat('en', { style: 'currency', currency: code });
  return format.resolvedOptions().maximumFractionDigits === 2;
}
