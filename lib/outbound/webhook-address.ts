import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent. Tenants choose the URL, so without these checks a webhook is a way
 * to make our Lambda call the instance metadata service, a VPC neighbour or itself (SSRF).
 * Two layers: checkWebhookUrl when the URL is registered (syntax, scheme, literal hosts), and
 * isForbiddenAddress on the address actually connected to, at every delivery (webhook-request.ts).
 */

const MAX_URL_LENGTH = 2048;
const NOT_PUBLIC = 'must not point at a private, loopback or link-local address';

const blockListOf = (subnets: readonly string[], type: 'ipv4' | 'ipv6'): BlockList => {
  const list = new BlockList();
  for (const subnet of subnets) {
    const [network, prefix] = subnet.split('/');
    list.addSubnet(network as string, Number(prefix), type);
  }
  return list;
};

// IANA special-purpose IPv4 blocks that are not globally reachable, and multicast/reserved.
const FORBIDDEN_V4 = blockListOf(
  [
    '0.0.0.0/8', // "this network"; 0.0.0.0 connects to the local host on Linux
    '10.0.0.0/8',
    '100.64.0.0/10', // carrier-grade NAT
    '169.254.0.0/16', // link-local, including the instance metadata service
    '172.16.0.0/12',
    '192.0.0.0/24', // IETF protocol assignments
    '192.0.2.0/24', // TEST-NET-1
    '192.88.99.0/24', // 6to4 relay anycast (deprecated)
    '192.168.0.0/16',
    '198.18.0.0/15', // benchmarking
    '198.51.100.0/24', // TEST-NET-2
    '203.0.113.0/24', // TEST-NET-3
    '224.0.0.0/4', // multicast
    '240.0.0.0/4', // reserved, and 255.255.255.255
  ],
  'ipv4',
);
const LOOPBACK_V4 = blockListOf(['127.0.0.0/8'], 'ipv4');

const FORBIDDEN_V6 = blockListOf(
  [
    '::/128',
    'fc00::/7', // unique local
    'fe80::/10', // link-local
    'fec0::/10', // site-local (deprecated)
    'ff00::/8', // multicast
    '2001:db8::/32', // documentation
    '100::/64', // discard-only
    '2001::/23', // IETF protocol assignments, Teredo among them
    '64:ff9b:1::/48', // local-use NAT64
  ],
  'ipv6',
);
const LOOPBACK_V6 = blockListOf(['::1/128'], 'ipv6');
// Every public IPv6 address is in 2000::/3; the rest of the space is reserved or special, so an
// address outside it is refused even when no block above names it (::/96 IPv4-compatible, say).
const GLOBAL_UNICAST_V6 = blockListOf(['2000::/3'], 'ipv6');

/** The eight 16-bit groups of an address that isIP has already accepted as IPv6 (no zone). */
const ipv6Groups = (ip: string): number[] => {
  // A trailing dotted quad (::ffff:1.2.3.4) becomes its two groups, so only hex remains.
  const hex = ip.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((g) => g.toString(16)).join(':'),
  );
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const [head = '', tail] = hex.split('::');
  if (tail === undefined) return groupsOf(head);
  const left = groupsOf(head);
  const right = groupsOf(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
};

const ipv4Of = (high: number, low: number): string => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 address that an IPv6 address carries and that the connection really reaches, with
 * whether that is this host (mapped) or a translator's far side (NAT64, 6to4); else null.
 */
const embeddedIPv4 = (ip: string): { ipv4: string; local: boolean } | null => {
  const g = ipv6Groups(ip);
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = g;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) {
    return { ipv4: ipv4Of(g6, g7), local: true }; // ::ffff:a.b.c.d
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return { ipv4: ipv4Of(g6, g7), local: false }; // 64:ff9b::a.b.c.d
  }
  if (g0 === 0x2002) return { ipv4: ipv4Of(g1 ?? 0, g2 ?? 0), local: false }; // 6to4, 2002:aabb:ccdd::
  return null;
};

const isForbiddenV4 = (ip: string, allowLoopback: boolean): boolean =>
  FORBIDDEN_V4.check(ip, 'ipv4') || (!allowLoopback && LOOPBACK_V4.check(ip, 'ipv4'));

/**
 * Whether a webhook must not be delivered to `ip`. Anything that is not a plain IP literal is
 * forbidden, zoned IPv6 (fe80::1%eth0) included. IPv6 that carries an IPv4 address is judged by it.
 * `allowLoopback` is for local development and tests only.
 */
export const isForbiddenAddress = (ip: string, allowLoopback: boolean): boolean => {
  const family = isIP(ip);
  if (family === 4) return isForbiddenV4(ip, allowLoopback);
  if (family !== 6 || ip.includes('%')) return true;
  const embedded = embeddedIPv4(ip);
  // Loopback through a translator is the translator's loopback, never ours: always refused.
  if (embedded) return isForbiddenV4(embedded.ipv4, allowLoopback && embedded.local);
  if (LOOPBACK_V6.check(ip, 'ipv6')) return !allowLoopback;
  return FORBIDDEN_V6.check(ip, 'ipv6') || !GLOBAL_UNICAST_V6.check(ip, 'ipv6');
};

/** Whether `ip` is this host's loopback: 127.0.0.0/8, ::1 or ::ffff:127.x.y.z. */
export const isLoopbackAddress = (ip: string): boolean =>
  isForbiddenAddress(ip, false) && !isForbiddenAddress(ip, true);

/** The host of a parsed URL as an IP literal (brackets removed), or null for a name. */
export const ipLiteralOf = (url: URL): string | null => {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) ? host : null;
};

const isLocalhostName = (hostname: string): boolean => {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return name === 'localhost' || name.endsWith('.localhost');
};

/**
 * The check made when a webhook URL is registered, before any DNS: an absolute https URL of at
 * most 2048 characters as sent and as normalised (the form stored and called), with no credentials or fragment, whose host is not a forbidden literal or
 * `localhost`. With `allowLoopback` (local development), http is accepted too, to loopback only.
 * A name that resolves to a forbidden address passes here; delivery refuses it (webhook-request.ts).
 */
export const checkWebhookUrl = (
  raw: string,
  options: { allowLoopback: boolean },
): { ok: true; url: URL } | { ok: false; reason: string } => {
  if (raw.length > MAX_URL_LENGTH)
    return { ok: false, reason: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'must be an absolute URL' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'must not contain a username or password' };
  }
  // url.hash is '' for a bare trailing '#' too, so look for the separator itself.
  if (url.href.includes('#')) return { ok: false, reason: 'must not contain a fragment' };

  const literal = ipLiteralOf(url);
  const loopback = literal ? isLoopbackAddress(literal) : url.hostname === 'localhost';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowLoopback && loopback)) {
    return { ok: false, reason: 'must be an https URL' };
  }
  const forbidden = literal
    ? isForbiddenAddress(literal, options.allowLoopback)
    : !options.allowLoopback && isLocalhostName(url.hostname);
  if (forbidden) return { ok: false, reason: NOT_PUBLIC };
  // The limit holds for what is stored, listed and called: normalising can grow a URL (each
  // non-ASCII character of its path becomes three or more percent-encoded ones).
  if (url.href.length > MAX_URL_LENGTH)
    return {
      ok: false,
      reason: `must be at most ${MAX_URL_LENGTH} characters once normalised (this one is ${url.href.length})`,
    };
  return { ok: true, url };
};

/** A URL's scheme, host and port: all of it a log line or the audit trail names (its path or query may carry a token). */
export const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return 'unparseable';
  }
};
