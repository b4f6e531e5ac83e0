import { z } from 'zod';

/** Characters as people count them (code points), the way PostgreSQL's varchar(n) counts them too. */
export const characterCount = (value: string) => [...value].length;

/** A run of characters that may belong to an e-mail address: up to a space, bracket, quote or separator. */
const WORD = /[^\s<>()[\]"',;:]+/g;

/**
 * `text` with each e-mail address in it replaced by `<address>` (and unchanged, at the cost of one `includes`,
 * when it has no `@`): what an SMTP server said (a 550 names the recipient), a log line's fields, an error
 * that repeats its input. A run of characters up to a space, bracket, quote or separator is an address when
 * an `@` stands inside it (`<a@b>` keeps its `<>`); runs are looked at once each, so the time is linear in
 * the text however many `@` it holds. Nothing personal is logged, traced or shown in an error
 * (docs/security.md).
 */
export const withoutAddresses = (text: string) =>
  text.includes('@')
    ? text.replace(WORD, (run) => {
        const at = run.indexOf('@', 1);
        return at > 0 && at < run.length - 1 ? '<address>' : run;
      })
    : text;

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

/**
 * An optional free text of at most `max` characters (a reason given to buyers): anything a required text field
 * takes, blank or left out meaning none.
 */
export const optionalTextField = (max: number) =>
  z
    .string()
    .refine((value) => characterCount(value) <= max, `must be at most ${max} characters`)
    .refine((value) => !value.includes('\u0000'), 'must not contain the NUL character')
    .refine((value) => value.isWellFormed(), 'must be valid Unicode text (no lone surrogates)')
    .meta({ maxLength: max, pattern: '^[^\\u0000]*$' })
    .nullish();

/** A free text that says something, or null (left out, empty or only white space). */
export const saidOrNull = (text: string | null | undefined) => (text?.trim() ? text : null);
