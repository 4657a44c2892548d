/**
 * guardedFetch against real servers on loopback. Every request goes through `loopbackOnly()`,
 * which refuses any non-loopback address on its own, and every name is resolved by a fake
 * resolver, so even a broken guard cannot make these tests reach the network.
 */
import { afterEach, describe, expect, test } from "bun:test";

import { guardedFetch, type GuardedFetchOptions } from "../../../src/net/guarded-request.ts";
import { OutboundError } from "../../../src/net/outbound-error.ts";
import { checkUrl } from "../../../src/net/resolve.ts";
import { selfSignedCert } from "../../support/certificates.ts";
import { fakeResolver, listenTcp, loopbackOnly, serveHttp, serveTls, unusedPort } from "../../support/loopback.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
const later = <T extends { stop(): Promise<void> }>(fixture: T): T => {
  cleanups.push(() => fixture.stop());
  return fixture;
};

async function outboundFailure(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundError) return error;
    throw error;
  }
  throw new Error("expected an OutboundError, but the request succeeded");
}

/**
 * Defaults for these tests: private ranges blocked, only loopback reachable. The deadline is wide:
 * a test that is not about it must not race it on a loaded machine; those that are set their own.
 */
function options(net: ReturnType<typeof loopbackOnly>, extra: Partial<GuardedFetchOptions> = {}): GuardedFetchOptions {
  return { allowPrivate: false, timeoutMs: 10_000, maxBytes: 1024 * 1024, resolver: fakeResolver({}), transport: net.transport, ...extra };
}

describe("refused before any connection", () => {
  const hosts = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://[::1]:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://localhost:${port}/`,
    `http://LOCALHOST.:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f.1:${port}/`,
  ];

  test("loopback in every spelling is blocked with OG_ALLOW_PRIVATE_NETWORKS off; the server sees zero connections", async () => {
    const server = later(await listenTcp());
    const net = loopbackOnly();
    const resolver = fakeResolver({});
    for (const url of hosts(server.port)) {
      const error = await outboundFailure(guardedFetch(url, options(net, { resolver })));
      expect({ url, reason: error.reason }).toEqual({ url, reason: "blocked_address" });
    }
    expect(net.attempts).toEqual([]);
    expect(resolver.asked).toEqual([]); // literals and localhost never reach a resolver
    expect(server.connections).toBe(0);
  });

  test("checkUrl refuses the same list without touching the network", async () => {
    for (const url of hosts(80)) {
      const error = await outboundFailure(checkUrl(url, { allowPrivate: false, resolver: fakeResolver({}) }));
      expect(error.reason).toBe("blocked_address");
      expect(error.message).not.toContain("127.0.0.1"); // the range is named, the address is for logs
    }
  });

  test("a name is refused when ANY of its addresses is blocked", async () => {
    const resolver = fakeResolver({ "mixed.test": ["8.8.8.8", "10.0.0.1"] });
    const error = await outboundFailure(checkUrl("https://mixed.test/a.png", { allowPrivate: false, resolver }));
    expect(error.reason).toBe("blocked_address");
    expect(error.message).toBe(
      "mixed.test resolves to an address that is in a blocked range (private); private and loopback addresses are allowed only when the server sets OG_ALLOW_PRIVATE_NETWORKS=true",
    );
    expect(error.address).toBe("10.0.0.1");
  });

  test("non-http schemes and garbage are invalid_url", async () => {
    for (const url of ["ftp://example.test/x", "file:///etc/passwd", "gopher://x", "not a url", "data:image/png;base64,AA=="]) {
      expect((await outboundFailure(checkUrl(url, { allowPrivate: true, resolver: fakeResolver({}) }))).reason).toBe("invalid_url");
    }
  });

  test("with OG_ALLOW_PRIVATE_NETWORKS on, loopback is reachable", async () => {
    const server = later(serveHttp(() => new Response("hello")));
    const net = loopbackOnly();
    const response = await guardedFetch(`http://localhost:${server.port}/x`, options(net, { allowPrivate: true }));
    expect(response.status).toBe(200);
    expect(new TextDecoder().decode(response.bytes)).toBe("hello");
    expect(["127.0.0.1", "::1"]).toContain(response.connectedAddress);
  });
});

describe("connects to the checked address", () => {
  test("http: the resolved address is dialled, the Host header keeps the name, the resolver is asked once", async () => {
    const server = later(serveHttp(() => new Response("ok")));
    const net = loopbackOnly();
    // A rebinding resolver: the first answer passes the check, every later one is private.
    let calls = 0;
    const resolver = async () => (calls++ === 0 ? ["127.0.0.1"] : ["10.0.0.1"]);
    const response = await guardedFetch(`http://public.test:${server.port}/p?q=1`, options(net, { resolver, allowAddresses: ["127.0.0.1"] }));
    expect(response.status).toBe(200);
    expect(response.connectedAddress).toBe("127.0.0.1");
    expect(calls).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ host: `public.test:${server.port}`, path: "/p?q=1" });
    expect(net.violations).toEqual([]);
  });

  test("https: SNI and certificate verification use the name, the connection uses the checked address", async () => {
    const cert = selfSignedCert("public.test");
    cleanups.push(async () => cert.cleanup());
    const server = later(await serveTls(cert, new TextEncoder().encode("secure")));
    const net = loopbackOnly();
    const resolver = fakeResolver({ "public.test": ["127.0.0.1"] });
    const response = await guardedFetch(
      `https://public.test:${server.port}/img`,
      options(net, { resolver, allowAddresses: ["127.0.0.1"], tls: { ca: cert.cert } }),
    );
    expect(response.status).toBe(200);
    expect(new TextDecoder().decode(response.bytes)).toBe("secure");
    expect(server.seen).toEqual([{ servername: "public.test", host: `public.test:${server.port}` }]);
    expect(net.attempts).toEqual(["127.0.0.1"]);
  });

  test("https: a certificate for another name fails even though the address is right", async () => {
    const cert = selfSignedCert("other.test");
    cleanups.push(async () => cert.cleanup());
    const server = later(await serveTls(cert, new TextEncoder().encode("secure")));
    const net = loopbackOnly();
    const resolver = fakeResolver({ "public.test": ["127.0.0.1"] });
    const error = await outboundFailure(
      guardedFetch(`https://public.test:${server.port}/`, options(net, { resolver, allowAddresses: ["127.0.0.1"], tls: { ca: cert.cert } })),
    );
    expect(error.reason).toBe("network_error");
    expect(error.message).toContain("TLS");
  });

  test("falls back to the next checked address when the first refuses the connection", async () => {
    const server = later(serveHttp(() => new Response("second")));
    const net = loopbackOnly();
    // 127.0.0.2 is loopback too, but nothing listens on it at this port.
    const resolver = fakeResolver({ "two.test": ["127.0.0.2", "127.0.0.1"] });
    const response = await guardedFetch(`http://two.test:${server.port}/`, options(net, { resolver, allowPrivate: true }));
    expect(response.connectedAddress).toBe("127.0.0.1");
    expect(net.attempts).toEqual(["127.0.0.2", "127.0.0.1"]);
  });
});

describe("redirects", () => {
  for (const [name, target] of [
    ["private", "10.0.0.1"],
    ["metadata", "169.254.169.254"],
    ["CGNAT", "100.64.0.1"],
    ["unique-local", "fd00::1"],
    ["link-local", "fe80::1"],
  ] as const) {
    test(`a hop to a name resolving to ${name} ${target} is refused without connecting`, async () => {
      const server = later(serveHttp(() => new Response(null, { status: 302, headers: { location: "http://evil.test/steal" } })));
      const net = loopbackOnly();
      const resolver = fakeResolver({ "public.test": ["127.0.0.1"], "evil.test": [target] });
      // Only the first hop's loopback server is allowed, by exact address; every range stays blocked.
      const error = await outboundFailure(
        guardedFetch(`http://public.test:${server.port}/logo.png`, options(net, { resolver, allowAddresses: ["127.0.0.1"] })),
      );
      expect(error.reason).toBe("blocked_address");
      expect(resolver.asked).toEqual(["public.test", "evil.test"]);
      expect(net.attempts).toEqual(["127.0.0.1"]);
      expect(net.violations).toEqual([]);
      expect(server.requests).toHaveLength(1);
    });
  }

  test("a hop to a literal metadata address is refused even with OG_ALLOW_PRIVATE_NETWORKS on", async () => {
    const server = later(serveHttp(() => new Response(null, { status: 307, headers: { location: "http://169.254.169.254/latest/meta-data/" } })));
    const net = loopbackOnly();
    const error = await outboundFailure(guardedFetch(server.url("/"), options(net, { allowPrivate: true })));
    expect(error.reason).toBe("blocked_address");
    expect(net.attempts).toEqual(["127.0.0.1"]);
  });

  test("the safety net itself works: an allowed private hop is still never dialled", async () => {
    // With the flag on, 10.0.0.1 is allowed by the guard; only the test's fence stops it.
    const server = later(serveHttp(() => new Response(null, { status: 302, headers: { location: "http://10.0.0.1/" } })));
    const net = loopbackOnly();
    const error = await outboundFailure(guardedFetch(server.url("/"), options(net, { allowPrivate: true })));
    expect(error.reason).toBe("network_error");
    expect(net.violations).toEqual(["10.0.0.1"]);
  });

  test("up to maxRedirects are followed, each hop re-checked; one more is too_many_redirects", async () => {
    const server = later(
      serveHttp((request) => {
        const n = Number(new URL(request.url).pathname.slice(1));
        return n < 5 ? new Response(null, { status: 302, headers: { location: `/${n + 1}` } }) : new Response("done");
      }),
    );
    const net = loopbackOnly();
    const resolver = fakeResolver({ "public.test": ["127.0.0.1"] });
    const ok = await guardedFetch(`http://public.test:${server.port}/2`, options(net, { resolver, allowAddresses: ["127.0.0.1"], maxRedirects: 3 }));
    expect({ status: ok.status, redirects: ok.redirects, url: ok.url }).toEqual({ status: 200, redirects: 3, url: `http://public.test:${server.port}/5` });
    expect(resolver.asked).toEqual(["public.test", "public.test", "public.test", "public.test"]);

    server.requests.length = 0;
    const error = await outboundFailure(
      guardedFetch(`http://public.test:${server.port}/1`, options(net, { resolver, allowAddresses: ["127.0.0.1"], maxRedirects: 3 })),
    );
    expect(error.reason).toBe("too_many_redirects");
    expect(server.requests.map((r) => r.path)).toEqual(["/1", "/2", "/3", "/4"]);
  });

  test("followRedirects: false returns the 3xx as the final response (webhooks count it as a failure)", async () => {
    const server = later(serveHttp(() => new Response("moved", { status: 301, headers: { location: "/elsewhere" } })));
    const net = loopbackOnly();
    const response = await guardedFetch(server.url("/hook"), options(net, { allowPrivate: true, method: "POST", body: "{}", followRedirects: false }));
    expect(response.status).toBe(301);
    expect(server.requests.map((r) => r.path)).toEqual(["/hook"]);
  });

  test("303 turns POST into GET; 307 keeps the method and body; credentials do not cross origins", async () => {
    const bodies: string[] = [];
    const server = later(
      serveHttp(async (request) => {
        bodies.push(await request.text());
        const path = new URL(request.url).pathname;
        if (path === "/see-other") return new Response(null, { status: 303, headers: { location: "/landing" } });
        if (path === "/temporary") return new Response(null, { status: 307, headers: { location: `http://other.test:${new URL(request.url).port}/landing` } });
        return new Response("landed");
      }),
    );
    const net = loopbackOnly();
    const resolver = fakeResolver({ "public.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] });
    const common = { resolver, allowAddresses: ["127.0.0.1"], method: "POST", body: "payload", headers: { authorization: "Bearer s3cret" } };

    await guardedFetch(`http://public.test:${server.port}/see-other`, options(net, common));
    expect(server.requests.map((r) => r.method)).toEqual(["POST", "GET"]);
    expect(bodies).toEqual(["payload", ""]);
    expect(server.requests[1]!.headers.get("authorization")).toBe("Bearer s3cret"); // same origin

    server.requests.length = 0;
    bodies.length = 0;
    await guardedFetch(`http://public.test:${server.port}/temporary`, options(net, common));
    expect(server.requests.map((r) => [r.method, r.host])).toEqual([
      ["POST", `public.test:${server.port}`],
      ["POST", `other.test:${server.port}`],
    ]);
    expect(bodies).toEqual(["payload", "payload"]);
    expect(server.requests[1]!.headers.get("authorization")).toBeNull();
  });

  test("a redirect to a non-http scheme is refused", async () => {
    const server = later(serveHttp(() => new Response(null, { status: 302, headers: { location: "file:///etc/passwd" } })));
    const error = await outboundFailure(guardedFetch(server.url("/"), options(loopbackOnly(), { allowPrivate: true })));
    expect(error.reason).toBe("invalid_url");
  });
});

describe("limits", () => {
  test("a server that never answers times out on real time", async () => {
    const server = later(await listenTcp());
    const error = await outboundFailure(guardedFetch(`http://127.0.0.1:${server.port}/`, options(loopbackOnly(), { allowPrivate: true, timeoutMs: 300 })));
    expect(error.reason).toBe("timeout");
    // This request's own deadline ended it (without one it would hang until the test's timeout).
    expect(error.message).toBe("no complete response within 300 ms");
    expect(server.connections).toBe(1);
  });

  test("the deadline also covers a body that stalls half-way", async () => {
    const server = later(
      serveHttp(
        () =>
          new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new Uint8Array(100)); // then nothing, forever
              },
            }),
          ),
      ),
    );
    const error = await outboundFailure(guardedFetch(server.url("/"), options(loopbackOnly(), { allowPrivate: true, timeoutMs: 300 })));
    expect(error.reason).toBe("timeout");
  });

  test("a declared Content-Length over the cap is too_large before the body is read", async () => {
    const server = later(serveHttp(() => new Response(new Uint8Array(10_000))));
    const error = await outboundFailure(guardedFetch(server.url("/"), options(loopbackOnly(), { allowPrivate: true, maxBytes: 1_000 })));
    expect(error.reason).toBe("too_large");
  });

  test("an endless streamed body is cut off at the cap", async () => {
    let pulls = 0;
    const server = later(
      serveHttp(
        () =>
          new Response(
            new ReadableStream({
              pull(controller) {
                pulls++;
                controller.enqueue(new Uint8Array(512));
              },
            }),
          ),
      ),
    );
    const error = await outboundFailure(guardedFetch(server.url("/"), options(loopbackOnly(), { allowPrivate: true, maxBytes: 4_096 })));
    expect(error.reason).toBe("too_large");
    expect(pulls).toBeGreaterThan(0);
  });

  test("truncate keeps the first maxBytes instead of failing", async () => {
    const server = later(serveHttp(() => new Response("x".repeat(5_000))));
    const response = await guardedFetch(server.url("/"), options(loopbackOnly(), { allowPrivate: true, maxBytes: 100, truncate: true }));
    expect(response.bytes.byteLength).toBe(100);
    expect(response.truncated).toBe(true);
  });

  test("connection refused is a network_error", async () => {
    const port = await unusedPort();
    const error = await outboundFailure(guardedFetch(`http://127.0.0.1:${port}/`, options(loopbackOnly(), { allowPrivate: true })));
    expect(error.reason).toBe("network_error");
    expect(error.message).toBe("connection refused");
  });

  test("an unknown host is a network_error", async () => {
    const error = await outboundFailure(guardedFetch("http://nowhere.test/", options(loopbackOnly())));
    expect(error.reason).toBe("network_error");
    expect(error.message).toBe("could not resolve nowhere.test");
  });

  test("a resolver that hangs is bounded by the same deadline", async () => {
    const resolver = () => new Promise<string[]>(() => {});
    const error = await outboundFailure(guardedFetch("http://slow-dns.test/", options(loopbackOnly(), { resolver, timeoutMs: 200 })));
    expect(error.reason).toBe("timeout");
  });

  test("non-2xx statuses are returned, not thrown, with timing and address", async () => {
    const server = later(serveHttp(() => new Response("nope", { status: 503 })));
    const response = await guardedFetch(server.url("/"), options(loopbackOnly(), { allowPrivate: true }));
    expect(response.status).toBe(503);
    expect(response.connectedAddress).toBe("127.0.0.1");
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
  });
});
