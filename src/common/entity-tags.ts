// Entity tags (RFC 9110 §8.8.3) of resources that carry a version, and the If-Match rule that guards a change.

/** The entity tags of an `If-Match` or `If-None-Match` value (`*` stays `*`), as written. */
export function tagsOf(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/** The entity tag of a version: the opaque tag `v3`, sent quoted as `ETag: "v3"`. */
export const versionTag = (version: number) => `v${version}`;

/**
 * RFC 9110 §13.1.1, strong comparison: whether an `If-Match` value lets a change of a resource at `version`
 * go ahead. Absent: yes (the reference clients send none); `*`: yes, the resource exists; else one of its
 * comma-separated tags must be the current one, quoted as in HTTP or bare as GraphQL's `version` gives it.
 */
export function ifMatchAllows(ifMatch: string | null | undefined, version: number): boolean {
  if (ifMatch === null || ifMatch === undefined) return true;
  const current = versionTag(version);
  return tagsOf(ifMatch).some((tag) => tag === '*' || tag === `"${current}"` || tag === current);
}
