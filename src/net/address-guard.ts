/**
 * Which IP addresses an outbound request (image fetch, webhook delivery) may connect to.
 *
 * The rule is an allow-list: only ordinary public unicast is allowed. Every special range
 * ipaddr.js knows (loopback, RFC 1918, link-local, CGNAT, unique-local, multicast, reserved…)
 * is blocked, so a range we forgot to name is blocked too rather than reachable.
 * IPv6 forms that carry an IPv4 address (IPv4-mapped, 6to4, Teredo, NAT64) are judged by the
 * IPv4 address inside, because that is where the packets end up.
 *
 * `OG_ALLOW_PRIVATE_NETWORKS` (docs/operations.md) lifts the block for private-network ranges only.
 * Cloud metadata endpoints, "this host" (0.0.0.0, ::), broadcast and multicast stay blocked
 * even then: none of them is ever a legitimate image host or webhook receiver, and metadata
 * endpoints hand out credentials.
 */
import ipaddr from "ipaddr.js";

export interface AddressClass {
  /** Refused by default (OG_ALLOW_PRIVATE_NETWORKS off). */
  blocked: boolean;
  /**
   * The range the address fell in: "unicast" for public addresses, otherwise an ipaddr.js
   * range name ("loopback", "private", "linkLocal", "carrierGradeNat", "uniqueLocal",
   * "multicast", "unspecified", "broadcast", "reserved", …) or "metadata" / "invalid".
   * An address found inside an IPv6 wrapper reads e.g. "ipv4Mapped:loopback".
   */
  range: string;
  /** True when OG_ALLOW_PRIVATE_NETWORKS lifts the block. */
  privateNetwork: boolean;
}

export interface AddressPolicy {
  /** OG_ALLOW_PRIVATE_NETWORKS. */
  allowPrivate: boolean;
  /**
   * Exact addresses allowed whatever their range (an operator allow-list, and how tests let
   * one loopback server through while everything else stays blocked).
   */
  allowAddresses?: readonly string[];
}

/** Instance metadata services (AWS, GCP, Azure, Oracle, Alibaba, AWS ECS/EKS, AWS IPv6). */
const METADATA = new Set(["169.254.169.254", "169.254.170.2", "169.254.170.23", "100.100.100.200", "fd00:ec2::254", "fd00:ec2::23"]);

/** Blocked even with OG_ALLOW_PRIVATE_NETWORKS. */
const NEVER = new Set(["metadata", "unspecified", "broadcast", "multicast", "invalid", "ipv4Compatible"]);

const ALLOWED: AddressClass = { blocked: false, range: "unicast", privateNetwork: false };

const blocked = (range: string): AddressClass => ({ blocked: true, range, privateNetwork: !NEVER.has(range) });

/** Strips URL brackets and an IPv6 zone id ("[fe80::1%eth0]" → "fe80::1"). */
function bare(ip: string): string {
  const unbracketed = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const zone = unbracketed.indexOf("%");
  return zone === -1 ? unbracketed : unbracketed.slice(0, zone);
}

/**
 * Only canonical literals count as IPs here: ipaddr.js would also accept "2130706433" or
 * "0x7f.1", but URL parsing already rewrites those to dotted quads, and a resolver never
 * returns them — so anything else is a hostname, not an address.
 */
export function isIpLiteral(host: string): boolean {
  const ip = bare(host);
  return ipaddr.IPv4.isValidFourPartDecimal(ip) || (ip.includes(":") && ipaddr.IPv6.isValid(ip));
}

/** Pure: which range an IP literal is in and whether it is blocked. Never throws. */
export function classifyAddress(ip: string): AddressClass {
  const text = bare(ip);
  if (!isIpLiteral(text)) return blocked("invalid");
  const addr = ipaddr.parse(text);
  return addr.kind() === "ipv4" ? classifyV4(addr as ipaddr.IPv4) : classifyV6(addr as ipaddr.IPv6);
}

function classifyV4(addr: ipaddr.IPv4): AddressClass {
  if (METADATA.has(addr.toString())) return blocked("metadata");
  const range = addr.range();
  return range === "unicast" ? ALLOWED : blocked(range);
}

function classifyV6(addr: ipaddr.IPv6): AddressClass {
  if (METADATA.has(addr.toNormalizedString()) || METADATA.has(addr.toString())) return blocked("metadata");
  const range = addr.range();
  const embedded = embeddedV4(addr, range);
  if (embedded) {
    const inner = classifyV4(embedded);
    return inner.blocked ? { ...inner, range: `${range}:${inner.range}` } : ALLOWED;
  }
  // ::/96 minus :: and ::1 is the deprecated "IPv4-compatible" form; nothing legitimate uses it.
  if (range === "unicast" && addr.parts.slice(0, 6).every((p) => p === 0)) return blocked("ipv4Compatible");
  return range === "unicast" ? ALLOWED : blocked(range);
}

/** The IPv4 address an IPv6 transition form routes to, or undefined. */
function embeddedV4(addr: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const p = addr.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  switch (range) {
    case "ipv4Mapped": // ::ffff:a.b.c.d
    case "rfc6145": // ::ffff:0:a.b.c.d
      return v4(p[6]!, p[7]!);
    case "6to4": // 2002:AABB:CCDD::/48
      return v4(p[1]!, p[2]!);
    case "teredo": // client address, obfuscated by XOR, in the last 32 bits
      return v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff);
    case "rfc6052": // 64:ff9b::a.b.c.d (well-known NAT64); the /48 local-use prefix is judged as a range
      return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 ? v4(p[6]!, p[7]!) : undefined;
    default:
      return undefined;
  }
}

/** Applies the policy to one address. */
export function isAddressAllowed(ip: string, policy: AddressPolicy): boolean {
  if (policy.allowAddresses?.includes(bare(ip))) return true;
  const c = classifyAddress(ip);
  return !c.blocked || (policy.allowPrivate && c.privateNetwork);
}

/** The canonical form to connect to: brackets and zone stripped, IPv4-mapped unwrapped to IPv4. */
export function connectableAddress(ip: string): string {
  const addr = ipaddr.parse(bare(ip));
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) return (addr as ipaddr.IPv6).toIPv4Address().toString();
  return addr.toString();
}
