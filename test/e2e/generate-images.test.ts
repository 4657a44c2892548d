/**
 * Image URLs through the real route (docs/templates.md, Images): POST /api/generate fetches
 * logo_url / speaker_avatar_url on the main thread, through the address guard, and hands the
 * worker a data: URI. Every server here is on loopback. The service that may reach loopback
 * (OG_ALLOW_PRIVATE_NETWORKS=1) also gets a transport fenced to loopback, so even a broken
 * guard could not open a connection anywhere else.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fractionNear, decodePng, solidPngDataUri } from "../support/png.ts";
import { listenTcp, loopbackOnly, serveHttp, unusedPort, type HttpFixture, type LoopbackOnly, type TcpFixture } from "../support/loopback.ts";
import { startRenderService, type RenderTestService } from "../support/render-service.ts";

const MAGENTA: [number, number, number] = [255, 0, 255];
const logoBytes = new Uint8Array(Buffer.from(solidPngDataUri(240, 80, MAGENTA).split(",")[1]!, "base64"));

async function expectImageFailure(res: Response, field: string, reason: string): Promise<void> {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { code: string; details: { field: string; reason: string; message: string }[] };
  expect(body.code).toBe("IMAGE_FETCH_FAILED");
  expect(body.details).toHaveLength(1);
  expect(body.details[0]).toMatchObject({ field, reason });
  expect(body.details[0]!.message.length).toBeGreaterThan(0);
}

describe("with OG_ALLOW_PRIVATE_NETWORKS=1 (loopback fixtures reachable)", () => {
  let svc: RenderTestService;
  let images: HttpFixture;
  let silent: TcpFixture;
  let net: LoopbackOnly;

  beforeAll(async () => {
    images = serveHttp((request) => {
      const path = new URL(request.url).pathname;
      if (path === "/logo.png") return new Response(logoBytes, { headers: { "content-type": "image/png" } });
      if (path === "/big.png") return new Response(new Uint8Array(5 * 1024 * 1024 + 1));
      if (path === "/page.png") return new Response("<!doctype html><html><body>Not an image</body></html>", { headers: { "content-type": "image/png" } });
      if (path === "/to-metadata.png") return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
      return new Response("not found", { status: 404 });
    });
    silent = await listenTcp();
    net = loopbackOnly();
    // A short fetch budget keeps the timeout case (a server that never answers) fast; the 5 s
    // default is the net unit tests' business. Not too short: every fetch here races it, and a
    // loaded machine can keep a loopback fetch of the logo waiting for a good part of a second.
    svc = await startRenderService({ OG_ALLOW_PRIVATE_NETWORKS: "1" }, { fetch: { transport: net.transport, timeoutMs: 2_000 } });
  });
  afterAll(async () => {
    await svc.stop();
    await images.stop();
    await silent.stop();
  });

  test("a logo_url PNG is fetched and drawn in the top-right region; a repeat is served from the image cache", async () => {
    const before = await svc.used();
    const res = await svc.generate({ title: "Logo over HTTP", logo_url: images.url("/logo.png") });
    expect(res.status).toBe(200);
    const png = decodePng(new Uint8Array(await res.arrayBuffer()));
    // 240×80 contained in the template's 300×72 logo box, pinned right: x 912–1128, y 60–132.
    expect(fractionNear(png, 930, 70, 180, 55, MAGENTA, 10)).toBeGreaterThan(0.98);
    expect(fractionNear(png, 0, 0, 600, 630, MAGENTA, 10)).toBe(0);
    expect(fractionNear(png, 0, 200, 1200, 430, MAGENTA, 10)).toBe(0);

    const fetchesBefore = images.requests.length;
    const again = await svc.generate({ title: "Logo over HTTP, again", logo_url: images.url("/logo.png") });
    expect(again.status).toBe(200);
    await again.arrayBuffer();
    expect(images.requests.length).toBe(fetchesBefore);
    expect(await svc.used()).toBe(before + 2);
    expect(net.violations).toEqual([]);
  });

  test("each failure is a 422 naming the field and the reason, and nothing is counted", async () => {
    const before = await svc.used();
    const refusedPort = await unusedPort();
    const cases: [Record<string, string>, string, string][] = [
      [{ logo_url: `http://127.0.0.1:${silent.port}/slow.png` }, "logo_url", "timeout"],
      [{ logo_url: images.url("/big.png") }, "logo_url", "too_large"],
      [{ speaker_avatar_url: images.url("/page.png") }, "speaker_avatar_url", "not_an_image"],
      [{ logo_url: images.url("/to-metadata.png") }, "logo_url", "blocked_address"],
      [{ speaker_avatar_url: `http://127.0.0.1:${refusedPort}/me.png` }, "speaker_avatar_url", "network_error"],
    ];
    for (const [fields, field, reason] of cases) {
      await expectImageFailure(await svc.generate({ title: "Broken image", ...fields }), field, reason);
    }
    expect(await svc.used()).toBe(before);
    // The metadata redirect was refused by the guard, not by the test's fence.
    expect(net.violations).toEqual([]);
    expect(net.attempts.every((address) => address === "127.0.0.1")).toBe(true);
  });
});

describe("with OG_ALLOW_PRIVATE_NETWORKS off (the default)", () => {
  let svc: RenderTestService;
  let target: TcpFixture;

  beforeAll(async () => {
    target = await listenTcp();
    svc = await startRenderService();
  });
  afterAll(async () => {
    await svc.stop();
    await target.stop();
  });

  test("loopback in every spelling is refused before any connection is made", async () => {
    const before = await svc.used();
    const port = target.port;
    const hosts = ["127.0.0.1", "[::1]", "0.0.0.0", "localhost", "[::ffff:127.0.0.1]", "2130706433"];
    for (const host of hosts) {
      const res = await svc.generate({ title: "Loopback logo", logo_url: `http://${host}:${port}/logo.png` });
      await expectImageFailure(res, "logo_url", "blocked_address");
    }
    expect(target.connections).toBe(0);
    expect(await svc.used()).toBe(before);
  });

  test("data: URIs still work without any network", async () => {
    const res = await svc.generate({ title: "Inline logo", logo_url: solidPngDataUri(240, 80, MAGENTA) });
    expect(res.status).toBe(200);
    const png = decodePng(new Uint8Array(await res.arrayBuffer()));
    expect(fractionNear(png, 930, 70, 180, 55, MAGENTA, 10)).toBeGreaterThan(0.98);
  });
});
