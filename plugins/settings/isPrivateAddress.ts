import { isIPv4, isIPv6 } from 'node:net';

/** IPv4 ranges a host chosen in settings may not reach (docs/settings.md, Hosts chosen in settings): [first address, prefix length, what it is]. */
const IPV4_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (cloud metadata services answer at 169.254.169.254)'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.168.0.0', 16, 'a private address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved or broadcast address'],
];

/** IPv6 ranges, as [first 16-bit word, mask of that word, what it is] (every one of them fits in the first word). */
const IPV6_RANGES: ReadonlyArray<readonly [number, number, string]> = [
  [0xfc00, 0xfe00, 'a unique local (private) address'],
  [0xfe80, 0xffc0, 'a link-local address'],
  [0xfec0, 0xffc0, 'a site-local (private) address'],
  [0xff00, 0xff00, 'a multicast address'],
];

function ipv4Number(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function ipv4RangeOf(ip: string): string | null {
  const n = ipv4Number(ip);
  for (const [first, bits, what] of IPV4_RANGES) {
    const size = 2 ** (32 - bits);
    if (Math.floor(n / size) === Math.floor(ipv4Number(first) / size)) return what;
  }
  return null;
}

/** The eight 16-bit words of a valid IPv6 address (a dotted IPv4 tail and a zone id allowed). */
function ipv6Words(ip: string): number[] {
  let text = ip.replace(/%.*$/, '');
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const n = ipv4Number(tail[1]!);
    text = `${text.slice(0, tail.index)}${Math.floor(n / 65_536).toString(16)}:${(n % 65_536).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const words = (part: string) => (part === '' ? [] : part.split(':').map((w) => Number.parseInt(w, 16)));
  if (rest === undefined) return words(head);
  const front = words(head);
  const back = words(rest);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4OfWords = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * What kind of address `ip` is when a host chosen in settings may not reach it (loopback, private,
 * link-local, unspecified, ...), else null: a public address, or not an address at all. An IPv4
 * address inside IPv6 (`::ffff:127.0.0.1`, `::127.0.0.1`, NAT64 `64:ff9b::7f00:1`) is judged as
 * the IPv4 address it reaches.
 */
export function privateRangeOf(ip: string): string | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (isIPv4(bare)) return ipv4RangeOf(bare);
  if (!isIPv6(bare)) return null;
  const w = ipv6Words(bare);
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'an unspecified address';
  if (zeros(0, 7) && w[7] === 1) return 'a loopback address';
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and the NAT64 prefix 64:ff9b::/96.
  if ((zeros(0, 5) && (w[5] === 0xffff || w[5] === 0)) || (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6))) {
    return ipv4RangeOf(ipv4OfWords(w[6]!, w[7]!));
  }
  for (const [first, mask, what] of IPV6_RANGES) if ((w[0]! & mask) === first) return what;
  return null;
}

/** Whether a host chosen in settings may not reach `ip` (privateRangeOf says which range). */
export const isPrivateAddress = (ip: string): boolean => privateRangeOf(ip) !== null;
