import { isIP } from 'node:net';

interface NodeServerContext {
  req?: { socket?: { remoteAddress?: string } };
}

/**
 * The client's address for login throttling: the connection's peer, as node's server context gives it.
 * Behind a proxy (TRUST_PROXY=true) the connection is the proxy's, so the last `X-Forwarded-For` entry,
 * the one the proxy appended, names the client; otherwise that header is the client's own word and ignored.
 * IPv6 clients are grouped by their /64, which one client usually holds whole.
 */
export function clientAddress(serverContext: unknown, request: Request, trustProxy: boolean): string {
  return addressOf(
    (serverContext as NodeServerContext | null)?.req?.socket?.remoteAddress,
    request.headers.get('x-forwarded-for'),
    trustProxy,
  );
}

/** The same from the connection's peer and the `X-Forwarded-For` header, as node:http gives them. */
export function addressOf(
  peer: string | undefined,
  forwarded: string | string[] | null | undefined,
  trustProxy: boolean,
): string {
  let address: string | undefined;
  if (trustProxy && forwarded) {
    address = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .at(-1);
  }
  address ??= peer;
  if (!address) return 'unknown';
  if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) return address.slice(7);
  if (isIP(address) === 6) return `${ipv6Prefix64(address)}::/64`;
  return isIP(address) === 4 ? address : 'invalid';
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
