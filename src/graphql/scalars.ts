import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { isCalendarDate, isLocalTime } from '../common/dates.ts';
import { ERROR_KINDS } from '../common/errors.ts';
import { builder } from './builder.ts';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// The WHATWG HTML e-mail grammar (what browsers accept in <input type=email>), at most 254 characters.
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export const isUuid = (value: string) => UUID_PATTERN.test(value);
export const isEmailAddress = (value: string) => value.length <= 254 && EMAIL_PATTERN.test(value);

/** How the OpenAPI document (src/openapi/document.ts) describes a scalar: the JSON Schema of what it accepts. */
export interface ScalarExtensions {
  jsonSchema: Record<string, unknown>;
}

/** The scalars below: strings that serialize as they are (compiled queries copy them: use-compiled-queries.ts). */
export const PLAIN_STRING_SCALARS = new Set<string>();

/**
 * A string scalar whose values must pass `accepts`; errors are BAD_USER_INPUT, as are zod's. `jsonSchema` says
 * the same for the OpenAPI document.
 */
function stringScalar(
  name: 'Date' | 'LocalTime' | 'UUID' | 'EmailAddress' | 'DateTime',
  description: string,
  accepts: (v: string) => boolean,
  expected: string,
  jsonSchema: Record<string, unknown>,
) {
  const parse = (value: unknown, node?: ValueNode): string => {
    if (typeof value !== 'string' || !accepts(value)) {
      throw new GraphQLError(`must be ${expected}`, {
        nodes: node,
        extensions: { code: ERROR_KINDS.validation.code },
      });
    }
    return value;
  };
  PLAIN_STRING_SCALARS.add(name);
  builder.scalarType(name, {
    description,
    extensions: { jsonSchema: { type: 'string', ...jsonSchema } } satisfies ScalarExtensions,
    serialize: (value) => value as string,
    parseValue: (value) => parse(value),
    parseLiteral: (node) => parse(node.kind === Kind.STRING ? node.value : undefined, node),
  });
}

stringScalar(
  'Date',
  'A calendar date, `YYYY-MM-DD`, that exists (2023-02-30 does not).',
  isCalendarDate,
  'a calendar date YYYY-MM-DD that exists',
  { format: 'date', maxLength: 10, description: 'A calendar date, `YYYY-MM-DD`, that exists.' },
);
stringScalar(
  'LocalTime',
  'A time of day on the 24-hour clock, `HH:MM`.',
  isLocalTime,
  'a time HH:MM (00:00 to 23:59)',
  { pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', maxLength: 5, description: 'HH:MM, 24-hour clock.' },
);
stringScalar('UUID', 'A UUID such as `3be6453c-03eb-4357-ae5a-984a0e574a54`.', isUuid, 'a UUID', {
  format: 'uuid',
  maxLength: 36,
});
stringScalar(
  'EmailAddress',
  'An e-mail address of at most 254 characters.',
  isEmailAddress,
  'a valid e-mail address of at most 254 characters',
  { format: 'email', maxLength: 254 },
);
stringScalar(
  'DateTime',
  'An instant, RFC 3339 in UTC: `2030-10-29T08:30:00.000Z`.',
  (value) => RFC3339_UTC.test(value) && !Number.isNaN(Date.parse(value)),
  'an RFC 3339 date-time in UTC such as 2030-10-29T08:30:00.000Z',
  { format: 'date-time', maxLength: 24 },
);
