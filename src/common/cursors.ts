// The cursors of the keyset connections: opaque to clients, base64url of a small versioned payload, the list
// and range ("scope") it was given for, and the sort key of its row. A cursor is honoured only by the list and
// range it came from, so it can move a client within that range and never into another.
import { z } from 'zod';
import { invalidField } from './errors.ts';

const VERSION = 1;

// An event's name is at most 200 characters: every honest cursor is far shorter.
const MAX_CURSOR_LENGTH = 1_000;

/** A row's place in its list: the values of the list's sort key, the row's id last. */
export type CursorKey = readonly string[];

/**
 * Which rows a page reads: strictly between `after` and `before` (each the sort key of a cursor, or absent:
 * the list's start or end), at most `limit` of them, from the `after` end, or from the `before` end when
 * `backwards`, in that order.
 */
export interface KeysetWindow<K extends CursorKey> {
  after?: K;
  before?: K;
  limit: number;
  backwards: boolean;
}

/** A row and its sort key. */
export interface Keyed<T> {
  node: T;
  key: CursorKey;
}

/** What a domain's keyset read answers: the window's rows, and how many the whole range has. */
export interface KeysetPage<T> {
  rows: Keyed<T>[];
  total: number;
}

/** The cursor of the row whose sort key is `key`, in the list and range `scope` names. */
export const encodeCursor = (scope: string, key: CursorKey): string =>
  Buffer.from(JSON.stringify([VERSION, scope, ...key])).toString('base64url');

const payloadSchema = z.tuple([z.literal(VERSION), z.string()]).rest(z.string());

/**
 * The sort key a cursor holds, checked against `keySchema`; a validation error naming `argument` (`after`,
 * `before`) when the cursor is malformed, of another version, or of another list or range than `scope`.
 */
export function decodeCursor<K extends CursorKey>(
  cursor: string,
  scope: string,
  keySchema: z.ZodType<K>,
  argument: string,
): K {
  const refused = () => invalidField(argument, 'is not a cursor of this list and range');
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refused();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    throw refused();
  }
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success || parsed.data[1] !== scope) throw refused();
  const key = keySchema.safeParse(parsed.data.slice(2));
  if (!key.success) throw refused();
  return key.data;
}
