import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyAddr from 'proxy-addr';

/**
 * Which proxies in front of the service may name the client in `X-Forwarded-For` (MUSEUM_TRUST_PROXY), as
 * proxy-addr's trust function: whether the address at `hop` (0: the connection's peer, then the header's
 * entries from the right) is a proxy to look past. None (the default: the header is the client's own word and
 * ignored), a number of hops, or the proxies' addresses and ranges. A client that connects directly can never
 * choose its address.
 */
export type TrustedProxies = (address: string, hop: number) => boolean;

export const NO_PROXY: TrustedProxies = () => false;

/**
 * MUSEUM_TRUST_PROXY's value: `false`, `true` (one hop), a number of hops, or addresses and CIDR ranges (and
 * proxy-addr's names `loopback`, `linklocal`, `uniquelocal`).
 */
export function parseTrustedProxies(value: string): TrustedProxies | { error: string } {
  if (value === 'false' || value === '0') return NO_PROXY;
  const hops = value === 'true' ? 1 : /^\d+$/.test(value) ? Number(value) : null;
  if (hops !== null) return hops <= 16 ? (_address, hop) => hop < hops : { error: 'must be at most 16 hops' };
  const entries = value.split(',').map((part) => part.trim());
  for (const entry of entries)
    try {
      proxyAddr.compile(entry);
    } catch {
      return { error: `has "${entry}", which is not an IP address or CIDR range` };
    }
  return proxyAddr.compile(entries);
}

/** The same from the connection's peer and the `X-Forwarded-For` header, as node:http gives them. */
export function addressOf(
  peer: string | undefined,
  forwarded: string | string[] | null | undefined,
  trusted: TrustedProxies,
): string {
  const address =
    peer && forwarded && trusted !== NO_PROXY
      ? proxyAddr(
          {
            headers: { 'x-forwarded-for': String(forwarded) },
            socket: { remoteAddress: peer },
          } as unknown as IncomingMessage,
          trusted,
        )
      : peer;
  if (!address) return 'unknown';
  const plain = unmapped(address);
  if (isIP(plain) === 6) return `${ipv6Prefix64(plain)}::/64`;
  return isIP(plain) === 4 ? plain : 'invalid';
}

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, as a dual-stack socket gives it) as itself. */
const unmapped = (address: string) =>
  address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;

/** The first four groups of an IPv6 address, `::` expanded. */
function ipv6Prefix64(address: string): string {
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':');
}
