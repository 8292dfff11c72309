import ipaddr from 'ipaddr.js';

/**
 * Which targets import_url may fetch (docs/adr/0057-import-url-ssrf-guard.md). Pure: the
 * fetcher (web/) asks these questions of every URL it is about to request (the first and each
 * redirect) and of every address a host name resolved to, before it connects, and again of the
 * address the socket actually connected to.
 *
 * Only public unicast addresses are fetched by default: every range ipaddr.js classifies as
 * anything but `unicast` (loopback, RFC 1918, link-local, unique-local, CGNAT, multicast,
 * IPv4-mapped and the other special-purpose ranges) is refused, and so are the cloud metadata
 * endpoints by name. The operator may lift the ranges (QUARRY_IMPORT_URL_ALLOW_PRIVATE) or allow
 * given hosts and CIDRs (QUARRY_IMPORT_URL_ALLOW).
 */

export interface TargetPolicy {
  /** Fetch private, loopback, link-local, … addresses too (never a metadata endpoint unless allowed below). */
  readonly allowPrivate: boolean;
  /** Host names (lower case, exact) fetched whatever they resolve to. */
  readonly allowHosts: readonly string[];
  /** Address ranges fetched whatever their kind. */
  readonly allowRanges: readonly AddressRange[];
}

export type AddressRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Only public targets: what import_url fetches unless the operator says otherwise. */
export const PUBLIC_ONLY: TargetPolicy = Object.freeze({ allowPrivate: false, allowHosts: [], allowRanges: [] });

/** Why a target is refused: a stable name and what it means, for the caller. */
export interface BlockRule {
  readonly rule: string;
  readonly explanation: string;
}

/** The instance metadata endpoints (AWS, GCP, Azure, OpenStack: IPv4; AWS Nitro: IPv6). */
const METADATA_ADDRESSES = ['169.254.169.254', 'fd00:ec2::254'].map((a) => ipaddr.parse(a).toString());

const RANGE_RULES: Readonly<Record<string, BlockRule>> = {
  unspecified: { rule: 'unspecified', explanation: 'an unspecified address (0.0.0.0/8, ::)' },
  broadcast: { rule: 'broadcast', explanation: 'the broadcast address' },
  multicast: { rule: 'multicast', explanation: 'a multicast address' },
  linkLocal: { rule: 'link-local', explanation: 'a link-local address (169.254.0.0/16, fe80::/10)' },
  loopback: { rule: 'loopback', explanation: 'a loopback address (127.0.0.0/8, ::1)' },
  carrierGradeNat: { rule: 'carrier-grade-nat', explanation: 'a carrier-grade NAT address (100.64.0.0/10)' },
  private: { rule: 'private', explanation: 'a private network address (10/8, 172.16/12, 192.168/16)' },
  uniqueLocal: { rule: 'unique-local', explanation: 'a unique-local IPv6 address (fc00::/7)' },
  ipv4Mapped: { rule: 'ipv4-mapped', explanation: 'an IPv4-mapped IPv6 address (::ffff:0:0/96)' },
};

const METADATA_RULE: BlockRule = { rule: 'metadata', explanation: 'a cloud metadata endpoint' };

/** A host that is an IP address, as the WHATWG URL parser leaves it (IPv4 dotted, IPv6 in brackets). */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare)) return bare;
  return undefined;
}

/** What kind of address this is, when it is not a public unicast one (regardless of any policy). */
export function addressRule(address: string): BlockRule | undefined {
  const parsed = ipaddr.parse(address);
  if (METADATA_ADDRESSES.includes(parsed.toString())) return METADATA_RULE;
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return RANGE_RULES[range] ?? { rule: range, explanation: `a special-purpose address (${range})` };
}

function inRanges(address: string, ranges: readonly AddressRange[]): boolean {
  const parsed = ipaddr.parse(address);
  return ranges.some(([base, bits]) => parsed.kind() === base.kind() && parsed.match(base, bits));
}

/** Why `address` (which `host` resolved to, or is) may not be fetched under `policy`; undefined when it may. */
export function blockedAddress(address: string, host: string, policy: TargetPolicy): BlockRule | undefined {
  const rule = addressRule(address);
  if (!rule) return undefined;
  if (policy.allowHosts.includes(host.toLowerCase()) || inRanges(address, policy.allowRanges)) return undefined;
  if (policy.allowPrivate && rule !== METADATA_RULE) return undefined;
  return rule;
}

/** A URL import_url may request (before its host is resolved), or why not. */
export function checkTargetUrl(raw: string): { url: URL } | { blocked: BlockRule } {
  if (!URL.canParse(raw)) return { blocked: { rule: 'invalid-url', explanation: 'not an absolute URL' } };
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { blocked: { rule: 'scheme', explanation: `the ${url.protocol} scheme (only http and https are fetched)` } };
  if (url.username || url.password)
    return { blocked: { rule: 'credentials', explanation: 'credentials in the URL (user:password@)' } };
  return { url };
}

/** Parses one QUARRY_IMPORT_URL_ALLOW entry: a CIDR, an address (its /32 or /128), or a host name. */
export function allowEntry(entry: string): { range: AddressRange } | { host: string } | undefined {
  const text = entry.trim();
  if (text.includes('/')) return ipaddr.isValidCIDR(text) ? { range: ipaddr.parseCIDR(text) } : undefined;
  const bare = literalAddress(text);
  if (bare) {
    const address = ipaddr.parse(bare);
    return { range: [address, address.kind() === 'ipv4' ? 32 : 128] };
  }
  return /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(text) ? { host: text.toLowerCase() } : undefined;
}

/** The policy an operator's settings describe; undefined entries are refused by the config first. */
export function targetPolicy(allowPrivate: boolean, entries: readonly string[]): TargetPolicy {
  const allowHosts: string[] = [];
  const allowRanges: AddressRange[] = [];
  for (const entry of entries) {
    const parsed = allowEntry(entry);
    if (parsed && 'host' in parsed) allowHosts.push(parsed.host);
    else if (parsed) allowRanges.push(parsed.range);
    else throw new Error(`"${entry}" is not a host name, an IP address or a CIDR`);
  }
  return { allowPrivate, allowHosts, allowRanges };
}
