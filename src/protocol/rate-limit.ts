/**
 * A refusal's limit as the IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) state it on
 * a 429, beside `Retry-After`: `RateLimit-Policy` names the policy, its quota `q` and window `w` (seconds);
 * `RateLimit` what is left of it (`r`) and when it resets (`t`, seconds). `resetSeconds` is the refusal's.
 */
export function rateLimitHeaders(
  { name, quota, window }: { name: string; quota: number; window: number },
  resetSeconds: number,
): Record<string, string> {
  return {
    'Retry-After': String(resetSeconds),
    'RateLimit-Policy': `"${name}";q=${quota};w=${window}`,
    RateLimit: `"${name}";r=0;t=${resetSeconds}`,
  };
}
