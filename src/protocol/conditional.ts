import { hash } from 'node:crypto';
import { tagsOf } from '../common/entity-tags.ts';

/**
 * A strong entity tag derived from a representation: a digest of its bytes, and of what else it says
 * (`extra`: a list's total), so equal tags mean equal representations.
 */
export function entityTag(content: string | Uint8Array, extra = ''): string {
  const digested =
    extra === ''
      ? content
      : `${typeof content === 'string' ? content : Buffer.from(content).toString('latin1')}\u0000${extra}`;
  return `"${hash('sha1', digested, 'base64url')}"`;
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** RFC 9110 §13.1.2: true when `If-None-Match` matches (weak comparison), so a GET answers 304. */
export function noneMatch(header: string | null, tag: string): boolean {
  if (header === null) return false;
  return tagsOf(header).some((candidate) => candidate === '*' || opaque(candidate) === opaque(tag));
}
