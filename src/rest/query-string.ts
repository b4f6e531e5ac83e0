/** A query string's name-value pairs, in order, decoded as `URLSearchParams` decodes them. */
export interface QueryString {
  /** The pairs' values by name, each name's in order. */
  values(name: string): string[];
  /**
   * The paging links' query, `page` set to `page` and `limit` to `limit`, the other pairs kept whose names
   * `keep` lists: what `URLSearchParams#set` (in the first one's place, else last) and its serializer write.
   */
  linkQuery(keep: readonly string[], limit: number): (page: number) => string;
}

// A pair that application/x-www-form-urlencoded leaves as it is: alphanumerics and `*-._`, one `=`. For such
// pairs decoding and encoding are both the identity, and nearly every query string is made of them.
const PLAIN_PAIR = /^[A-Za-z0-9*._-]+(?:=[A-Za-z0-9*._-]*)?$/;

/**
 * The query string (without its `?`). A plain one is split by hand: a REST read's two URLSearchParams (its
 * variables, its paging links) with their sets and serializations were ~3 µs of GET /museum-hours. Any other
 * is read and written by URLSearchParams itself.
 */
export function queryString(search: string): QueryString {
  const parts = search === '' ? [] : search.split('&');
  for (const part of parts) if (part !== '' && !PLAIN_PAIR.test(part)) return generalQueryString(search);
  const nameOf = (part: string) => {
    const equals = part.indexOf('=');
    return equals === -1 ? part : part.slice(0, equals);
  };
  return {
    values(name) {
      const values: string[] = [];
      for (const part of parts)
        if (part !== '' && nameOf(part) === name) values.push(part.slice(name.length + 1));
      return values;
    },
    linkQuery(keep, limit) {
      // The kept pairs as written (`name` alone stands for `name=`), with a slot for page and for limit.
      const pairs: string[] = [];
      let pageAt = -1;
      let limitAt = -1;
      for (const part of parts) {
        const name = part === '' ? '' : nameOf(part);
        if (!keep.includes(name)) continue;
        // `set` leaves page and limit in the first one's place and drops the others.
        if (name === 'page') {
          if (pageAt !== -1) continue;
          pageAt = pairs.length;
        } else if (name === 'limit') {
          if (limitAt !== -1) continue;
          limitAt = pairs.length;
        }
        pairs.push(part.includes('=') ? part : `${part}=`);
      }
      if (pageAt === -1) pageAt = pairs.push('') - 1;
      if (limitAt === -1) limitAt = pairs.push('') - 1;
      pairs[limitAt] = `limit=${limit}`;
      return (page) => {
        pairs[pageAt] = `page=${page}`;
        return pairs.join('&');
      };
    },
  };
}

function generalQueryString(search: string): QueryString {
  const query = new URLSearchParams(search);
  return {
    values: (name) => query.getAll(name),
    linkQuery(keep, limit) {
      const kept = new URLSearchParams([...query].filter(([name]) => keep.includes(name)));
      return (page) => {
        kept.set('page', String(page));
        kept.set('limit', String(limit));
        return kept.toString();
      };
    },
  };
}
