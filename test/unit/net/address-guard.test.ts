/**
 * The address guard's classification: pure functions, no connection is made here.
 * Private, link-local, CGNAT and metadata ranges are only ever tested this way (and through an
 * injected resolver in guarded-request.test.ts), never by connecting.
 */
import { describe, expect, test } from "bun:test";

import { classifyAddress, connectableAddress, isAddressAllowed, isIpLiteral } from "../../../src/net/address-guard.ts";

describe("classifyAddress", () => {
  // [address, range, lifted by OG_ALLOW_PRIVATE_NETWORKS]
  const blockedTable: [string, string, boolean][] = [
    ["127.0.0.1", "loopback", true],
    ["127.255.0.9", "loopback", true],
    ["[::1]", "loopback", true],
    ["::1", "loopback", true],
    ["0.0.0.0", "unspecified", false],
    ["::", "unspecified", false],
    ["[::ffff:127.0.0.1]", "ipv4Mapped:loopback", true],
    ["::ffff:7f00:1", "ipv4Mapped:loopback", true],
    ["::ffff:10.0.0.1", "ipv4Mapped:private", true],
    ["::ffff:169.254.169.254", "ipv4Mapped:metadata", false],
    ["10.0.0.1", "private", true],
    ["172.16.0.1", "private", true],
    ["172.31.255.255", "private", true],
    ["192.168.1.1", "private", true],
    ["169.254.169.254", "metadata", false],
    ["169.254.170.2", "metadata", false],
    ["fd00:ec2::254", "metadata", false],
    ["169.254.1.1", "linkLocal", true],
    ["100.64.0.1", "carrierGradeNat", true],
    ["100.127.255.254", "carrierGradeNat", true],
    ["fd00::1", "uniqueLocal", true],
    ["fc00::1", "uniqueLocal", true],
    ["fe80::1", "linkLocal", true],
    ["fe80::1%eth0", "linkLocal", true],
    ["224.0.0.1", "multicast", false],
    ["ff02::1", "multicast", false],
    ["255.255.255.255", "broadcast", false],
    ["240.0.0.1", "reserved", true],
    ["192.0.2.1", "reserved", true],
    ["2001:db8::1", "reserved", true],
    ["2002:7f00:1::", "6to4:loopback", true], // 6to4 wrapping 127.0.0.1
    ["2002:a00:1::", "6to4:private", true], // 6to4 wrapping 10.0.0.1
    ["64:ff9b::a00:1", "rfc6052:private", true], // NAT64 of 10.0.0.1
    ["64:ff9b::7f00:1", "rfc6052:loopback", true],
    ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "teredo:private", true], // client 10.0.0.1, XOR-obfuscated
    ["::7f00:1", "ipv4Compatible", false],
  ];
  for (const [ip, range, lifted] of blockedTable) {
    test(`${ip} is blocked as ${range}`, () => {
      expect(classifyAddress(ip)).toEqual({ blocked: true, range, privateNetwork: lifted });
    });
  }

  for (const ip of [
    "8.8.8.8",
    "1.1.1.1",
    "2606:4700::1111",
    "[2606:4700::1111]",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
    "172.32.0.1",
    "100.128.0.1",
  ]) {
    test(`${ip} is public`, () => {
      expect(classifyAddress(ip)).toEqual({ blocked: false, range: "unicast", privateNetwork: false });
    });
  }

  test("anything that is not a canonical IP literal is blocked as invalid", () => {
    for (const text of ["localhost", "example.com", "2130706433", "0x7f.1", "127.1", "", "1.2.3.4.5"]) {
      expect(classifyAddress(text)).toEqual({ blocked: true, range: "invalid", privateNetwork: false });
    }
  });
});

describe("isAddressAllowed", () => {
  test("OG_ALLOW_PRIVATE_NETWORKS lifts private ranges but never metadata, unspecified or multicast", () => {
    const open = { allowPrivate: true };
    for (const ip of ["127.0.0.1", "::1", "10.0.0.1", "192.168.1.1", "169.254.1.1", "100.64.0.1", "fd00::1", "fe80::1"])
      expect(isAddressAllowed(ip, open)).toBe(true);
    for (const ip of ["169.254.169.254", "fd00:ec2::254", "0.0.0.0", "::", "224.0.0.1", "255.255.255.255"]) expect(isAddressAllowed(ip, open)).toBe(false);
  });

  test("an exact allow-list entry wins over its range", () => {
    expect(isAddressAllowed("127.0.0.1", { allowPrivate: false })).toBe(false);
    expect(isAddressAllowed("127.0.0.1", { allowPrivate: false, allowAddresses: ["127.0.0.1"] })).toBe(true);
    expect(isAddressAllowed("127.0.0.2", { allowPrivate: false, allowAddresses: ["127.0.0.1"] })).toBe(false);
  });
});

describe("URL host forms", () => {
  // WHATWG URL parsing (Bun's `new URL`) rewrites odd IPv4 spellings before the guard sees them.
  const forms: [string, string][] = [
    ["http://2130706433/", "127.0.0.1"],
    ["http://0x7f000001/", "127.0.0.1"],
    ["http://0177.0.0.1/", "127.0.0.1"],
    ["http://127.1/", "127.0.0.1"],
    ["http://0x7f.1/", "127.0.0.1"],
    ["http://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]"],
    ["http://0.0.0.0/", "0.0.0.0"],
  ];
  for (const [url, hostname] of forms) {
    test(`${url} parses to ${hostname}, which is blocked`, () => {
      expect(new URL(url).hostname).toBe(hostname);
      expect(classifyAddress(new URL(url).hostname).blocked).toBe(true);
    });
  }

  test("literal detection and the connectable form", () => {
    expect(isIpLiteral("[::1]")).toBe(true);
    expect(isIpLiteral("localhost")).toBe(false);
    expect(connectableAddress("::ffff:7f00:1")).toBe("127.0.0.1");
    expect(connectableAddress("[2606:4700::1111]")).toBe("2606:4700::1111");
  });
});
