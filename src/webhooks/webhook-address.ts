import type { LookupAddress } from "node:dns";
// node:net and node:dns are required on first use (a webhook endpoint saved or delivered), not at every start
const isIP = (s: string): number => (require("node:net") as typeof import("node:net")).isIP(s);
const lookup = (host: string, opts: { all: true; verbatim: boolean }): Promise<LookupAddress[]> =>
  (require("node:dns/promises") as typeof import("node:dns/promises")).lookup(host, opts);
import { appError } from "../errors/index.ts";
import { addressAllowed, type Cidr, parseCidr } from "../net/cidr.ts";

/**
 * Addresses a webhook must not reach unless the operator allows it (DOCCHAT_WEBHOOK_ALLOW_PRIVATE): this host,
 * the local network, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast and reserved
 * ranges — what a server-side request forgery would aim at.
 */
const NON_PUBLIC = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "::/128",
  "::1/128",
  "fc00::/7",
  "fe80::/10",
  "ff00::/8",
].map((c) => parseCidr(c) as Cidr);

export function isPublicAddress(address: string): boolean {
  return isIP(address) !== 0 && !addressAllowed(NON_PUBLIC, address);
}

const refused = (message: string) => appError("url_not_allowed", { param: "url", message });

/** The URL's shape: http(s), a host, no credentials; at most 2,000 characters. Returns it normalised. */
export function checkWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw appError("bad_request", { param: "url", message: "url must be an absolute http:// or https:// URL." });
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !url.hostname || raw.length > 2000)
    throw appError("bad_request", { param: "url", message: "url must be an absolute http:// or https:// URL." });
  if (url.username || url.password) throw appError("bad_request", { param: "url", message: "url must not carry a user name or password." });
  url.hash = "";
  return url;
}

/** Where a host name leads; an IP literal leads to itself. */
export async function resolveHost(hostname: string): Promise<{ address: string; family: number }[]> {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  if (isIP(host)) return [{ address: host, family: isIP(host) }];
  return lookup(host, { all: true, verbatim: true });
}

/**
 * Every address the host resolves to must be public (unless allowed): checked when an endpoint is saved and again
 * for every delivery, where the connection then goes to exactly the address checked (DNS rebinding).
 */
export async function publicAddresses(hostname: string, allowPrivate: boolean): Promise<{ address: string; family: number }[]> {
  let addresses: { address: string; family: number }[];
  try {
    addresses = await resolveHost(hostname);
  } catch {
    throw refused(`The host ${hostname} could not be resolved.`);
  }
  if (addresses.length === 0) throw refused(`The host ${hostname} could not be resolved.`);
  if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address)))
    throw refused("Webhook URLs must lead to a public address (loopback, link-local and private networks are refused).");
  return addresses;
}
