import { z } from 'zod';

/** Characters as people count them (code points), the way PostgreSQL's varchar(n) counts them too. */
export const characterCount = (value: string) => [...value].length;

/** Text as HTML shows it: markup characters escaped (for text and attribute values). */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A required free-text field: not blank, at most `max` characters, any Unicode (emoji included) but NUL,
 * which PostgreSQL cannot store in text, and lone UTF-16 surrogates, which no UTF-8 text can hold. The
 * `.meta()` says the same in JSON Schema for the OpenAPI document (zod cannot export a refinement); lone
 * surrogates have no keyword.
 */
export const textField = (max: number) =>
  z
    .string()
    .refine((value) => value.trim().length > 0, 'must not be blank')
    .refine((value) => characterCount(value) <= max, `must be at most ${max} characters`)
    .refine((value) => !value.includes('\u0000'), 'must not contain the NUL character')
    .refine((value) => value.isWellFormed(), 'must be valid Unicode text (no lone surrogates)')
    .meta({ minLength: 1, maxLength: max, pattern: '\\S', allOf: [{ pattern: '^[^\\u0000]*$' }] });
