import { describe, expect, test } from "bun:test";
import { addressAllowed, clientAddress, parseAddress, parseCidr } from "../../src/net/cidr.ts";

const cidrs = (...xs: string[]) => xs.map((x) => parseCidr(x)).filter((c) => c !== null);

describe("IP allow-lists", () => {
  test("IPv4 and IPv6 CIDRs match the addresses inside them and nothing else", () => {
    const allow = cidrs("10.0.0.0/8", "2001:db8::/32");
    expect(addressAllowed(allow, "10.1.2.3")).toBe(true);
    expect(addressAllowed(allow, "11.0.0.1")).toBe(false);
    expect(addressAllowed(allow, "2001:db8:abcd::1")).toBe(true);
    expect(addressAllowed(allow, "2001:db9::1")).toBe(false);
  });

  test("an IPv4-mapped IPv6 address is the same client as its IPv4 form", () => {
    expect(parseAddress("::ffff:192.0.2.7")).toBe(parseAddress("192.0.2.7"));
    expect(addressAllowed(cidrs("192.0.2.0/24"), "::ffff:192.0.2.7")).toBe(true);
    expect(addressAllowed(cidrs("::ffff:192.0.2.0/120"), "192.0.2.99")).toBe(true);
  });

  test("invalid CIDRs and addresses are rejected rather than matching everything", () => {
    for (const bad of ["10.0.0.0/33", "300.1.1.1", "2001:db8::/129", "abc", "1.2.3.4/x", ""]) expect(parseCidr(bad)).toBeNull();
    expect(addressAllowed(cidrs("0.0.0.0/0"), "not-an-ip")).toBe(false);
  });

  test("X-Forwarded-For is read right to left and only while the hop is a trusted proxy", () => {
    const trusted = cidrs("127.0.0.1/32", "10.0.0.0/8");
    expect(clientAddress("127.0.0.1", "203.0.113.9", trusted)).toBe("203.0.113.9");
    // The client forged a first entry; the proxy chain appended the real peer: the forged one is never reached.
    expect(clientAddress("127.0.0.1", "198.51.100.1, 203.0.113.9", trusted)).toBe("203.0.113.9");
    expect(clientAddress("127.0.0.1", "198.51.100.1, 203.0.113.9, 10.0.0.5", trusted)).toBe("203.0.113.9");
    // From an untrusted peer the header is ignored.
    expect(clientAddress("192.0.2.1", "203.0.113.9", trusted)).toBe("192.0.2.1");
    // A garbage hop stops the walk at the last trusted address.
    expect(clientAddress("127.0.0.1", "garbage", trusted)).toBe("127.0.0.1");
  });
});
