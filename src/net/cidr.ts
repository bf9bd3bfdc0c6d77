// node:net is required with the first address parsed, not while the server starts (it cost every start milliseconds)
let netIsIP: ((s: string) => number) | undefined;
function isIP(s: string): number {
  if (!netIsIP) netIsIP = (require("node:net") as typeof import("node:net")).isIP;
  return netIsIP(s);
}

/** An address as a 128-bit BigInt (IPv4 mapped into ::ffff:0:0/96) so v4 and v6 compare alike. */
export function parseAddress(input: string): bigint | null {
  let s = input.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  const kind = isIP(s);
  if (kind === 4) return 0xffff00000000n | v4ToBig(s);
  if (kind !== 6) return null;
  return v6ToBig(s);
}

function v4ToBig(s: string): bigint {
  return s.split(".").reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n);
}

function v6ToBig(s: string): bigint {
  let text = s;
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two hextets.
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = v4ToBig(tail);
    text = `${text.slice(0, lastColon + 1)}${((v4 >> 16n) & 0xffffn).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = rest !== undefined && rest !== "" ? rest.split(":") : [];
  const fill = rest !== undefined ? 8 - left.length - right.length : 0;
  const parts = [...left, ...Array<string>(fill).fill("0"), ...right];
  return parts.reduce((acc, h) => (acc << 16n) | BigInt(Number.parseInt(h || "0", 16)), 0n);
}

export interface Cidr {
  base: bigint;
  bits: number;
  text: string;
}

/** Parses "10.0.0.0/8", "2001:db8::/32" or a bare address. Returns null when invalid. */
export function parseCidr(input: string): Cidr | null {
  const [addr = "", len] = input.trim().split("/");
  const base = parseAddress(addr);
  if (base === null) return null;
  const isV4 = isIP(addr.replace(/^\[|\]$/g, "")) === 4;
  const max = isV4 ? 32 : 128;
  if (len !== undefined && !/^\d{1,3}$/.test(len)) return null;
  const n = len === undefined ? max : Number(len);
  if (n > max) return null;
  const bits = isV4 ? 96 + n : n;
  const mask = bits === 0 ? 0n : ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - bits)) - 1n);
  return { base: base & mask, bits, text: input.trim() };
}

export function cidrContains(cidr: Cidr, address: bigint): boolean {
  if (cidr.bits === 0) return true;
  const mask = ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - cidr.bits)) - 1n);
  return (address & mask) === cidr.base;
}

export function addressAllowed(allow: Cidr[], address: string): boolean {
  const a = parseAddress(address);
  return a !== null && allow.some((c) => cidrContains(c, a));
}

/**
 * The client address: the socket peer, unless that peer is a trusted proxy, in which case X-Forwarded-For
 * is read right to left and the first hop that is not a trusted proxy is the client. Forged entries to the
 * left of an untrusted hop are never reached.
 */
export function clientAddress(socketAddress: string, forwardedFor: string | null, trusted: Cidr[]): string {
  let current = socketAddress;
  if (!forwardedFor || trusted.length === 0) return current;
  const hops = forwardedFor
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  while (addressAllowed(trusted, current)) {
    const next = hops.pop();
    if (next === undefined || parseAddress(next) === null) break;
    current = next;
  }
  return current;
}
