import { type LookupAddress, lookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

// Where a webhook may not be sent: the IANA special-purpose ranges (this host, private networks, carrier
// NAT, link-local — where the clouds' metadata services live —, documentation, benchmarking, multicast,
// reserved) and their IPv6 counterparts, including the translation prefixes that can embed one of them.
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');

// Names that always mean this machine or the cloud's metadata service, whatever a resolver says.
const FORBIDDEN_NAME = /(^|\.)localhost\.?$|^metadata\.google\.internal\.?$/i;

/** Whether an IP address is one a webhook must not reach (an IPv4-mapped IPv6 address as its IPv4). */
export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return FORBIDDEN.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The host of a URL as an address or a name (URL keeps IPv6 literals in brackets). */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Why a subscription may not point at `url`, or null when it may: https only, no credentials in the URL,
 * and a host that resolves to public addresses only. With `allowPrivate` (development, tests) any http(s)
 * URL goes. The resolved addresses are checked again at every delivery (`guardedLookup`): a name may
 * resolve elsewhere by then.
 */
export async function refusalOfTarget(url: URL, allowPrivate: boolean): Promise<string | null> {
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    return 'must be an https:// URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (allowPrivate) return null;
  const host = hostOf(url);
  if (FORBIDDEN_NAME.test(host)) return 'must not point at this machine or a private network';
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolveAll(host);
  } catch {
    return `its host ${host} cannot be resolved`;
  }
  return addresses.some(isForbiddenAddress)
    ? 'must not point at a loopback, private, link-local or metadata address'
    : null;
}

const resolveAll = (host: string) =>
  new Promise<string[]>((resolve, reject) =>
    lookup(host, { all: true }, (error, found) =>
      error ? reject(error) : resolve(found.map((entry) => entry.address)),
    ),
  );

export class ForbiddenTargetError extends Error {}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request that refuses to connect to a forbidden address: the check is on the
 * address the socket will connect to, so a name that resolved to a public address when the subscription was
 * made and to an internal one now (DNS rebinding) is refused.
 */
export function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: LookupCallback,
): void {
  lookup(hostname, { ...options, all: true } as { all: true }, (error, found) => {
    if (error) return callback(error, []);
    const refused = found.find((entry) => isForbiddenAddress(entry.address));
    if (refused)
      return callback(
        new ForbiddenTargetError(`${hostname} resolves to ${refused.address}, a private address`),
        [],
      );
    if (options.all) return callback(null, found);
    callback(null, found[0]!.address, found[0]!.family);
  });
}

/** Whether a URL's host is an IP address that is forbidden (node connects to those without a lookup). */
export const isForbiddenLiteral = (url: URL) => isIP(hostOf(url)) !== 0 && isForbiddenAddress(hostOf(url));
