import { BlockList, isIP } from 'node:net';

interface NodeServerContext {
  req?: { socket?: { remoteAddress?: string } };
}

/**
 * Which proxies in front of the service may name the client in `X-Forwarded-For` (MUSEUM_TRUST_PROXY):
 * none (`hops: 0`, the default: the header is the client's own word and ignored), a number of hops (the
 * client is that many entries from the right of the connection's peer), or the proxies' addresses and
 * ranges (entries are skipped from the right while they are trusted proxies; the first other one is the
 * client). A client that connects directly can never choose its address.
 */
export type TrustedProxies = { hops: number } | { addresses: BlockList };

export const NO_PROXY: TrustedProxies = { hops: 0 };

/** MUSEUM_TRUST_PROXY's value: `false`, `true` (one hop), a number of hops, or addresses and CIDR ranges. */
export function parseTrustedProxies(value: string): TrustedProxies | { error: string } {
  if (value === 'false' || value === '0') return NO_PROXY;
  if (value === 'true') return { hops: 1 };
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= 16 ? { hops } : { error: 'must be at most 16 hops' };
  }
  const addresses = new BlockList();
  for (const entry of value.split(',').map((part) => part.trim())) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
    if (family === 0 || !/^\d{0,3}$/.test(prefix ?? '') || bits > (family === 4 ? 32 : 128))
      return { error: `has "${entry}", which is not an IP address or CIDR range` };
    addresses.addSubnet(address, bits, family === 4 ? 'ipv4' : 'ipv6');
  }
  return { addresses };
}

/**
 * The client's address, for login throttling and the per-client request cap: the connection's peer, or
 * behind trusted proxies the entry of `X-Forwarded-For` they vouch for. IPv6 clients are grouped by their
 * /64, which one client usually holds whole.
 */
export function clientAddress(serverContext: unknown, request: Request, trusted: TrustedProxies): string {
  return addressOf(
    (serverContext as NodeServerContext | null)?.req?.socket?.remoteAddress,
    request.headers.get('x-forwarded-for'),
    trusted,
  );
}

/** The same from the connection's peer and the `X-Forwarded-For` header, as node:http gives them. */
export function addressOf(
  peer: string | undefined,
  forwarded: string | string[] | null | undefined,
  trusted: TrustedProxies,
): string {
  let address = peer;
  if (peer && forwarded && !('hops' in trusted && trusted.hops === 0)) {
    const chain = [
      ...(Array.isArray(forwarded) ? forwarded.join(',') : forwarded)
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
      peer,
    ];
    if ('hops' in trusted) address = chain[Math.max(0, chain.length - 1 - trusted.hops)];
    else {
      let at = chain.length - 1;
      while (at > 0 && isTrustedProxy(chain[at]!, trusted.addresses)) at--;
      address = chain[at];
    }
  }
  if (!address) return 'unknown';
  const plain = unmapped(address);
  if (isIP(plain) === 6) return `${ipv6Prefix64(plain)}::/64`;
  return isIP(plain) === 4 ? plain : 'invalid';
}

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, as a dual-stack socket gives it) as itself. */
const unmapped = (address: string) =>
  address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;

function isTrustedProxy(entry: string, addresses: BlockList): boolean {
  const address = unmapped(entry);
  const family = isIP(address);
  return family !== 0 && addresses.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

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
