/**
 * fetchImage end to end against loopback servers: formats sniffed from bytes, WebP converted so
 * resvg really draws it, every failure a 422 naming the field and the reason, and the cache.
 * Pixels are checked by rasterising the returned data: URI with resvg (and satori) — an image
 * the renderer would silently drop shows up here as a black pixel.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Resvg } from "@resvg/resvg-js";
import satori from "satori";

import { ApiError } from "../../../src/errors.ts";
import { createImageCache, type FetchImageOptions, fetchImage, sniffImage } from "../../../src/render/images/fetch-image.ts";
import { encodePng } from "../../../src/render/output/png.ts";
import { fakeResolver, listenTcp, loopbackOnly, serveHttp, unusedPort } from "../../support/loopback.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
function serve(handler: Parameters<typeof serveHttp>[0]) {
  const server = serveHttp(handler);
  cleanups.push(() => server.stop());
  return server;
}

// ---- fixtures: tiny opaque red images -------------------------------------------------------
const RED_GIF = new Uint8Array([
  0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0, 0xff, 0, 0, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3b,
]);
// 8×8 red, made with libwebp (via @jsquash/webp's encoder): lossy (VP8) and lossless (VP8L).
const RED_WEBP_LOSSY = Buffer.from("UklGRjwAAABXRUJQVlA4IDAAAADQAQCdASoIAAgAAgA0JaACdLoB+AADsAD+8MQL/yC5YXXI1/8gP+QH/ID/+PIAAAA=", "base64");
const RED_WEBP_LOSSLESS = Buffer.from("UklGRhwAAABXRUJQVlA4TA8AAAAvB8ABAAcQ/Y/+ByKi/wEA", "base64");
const RED_PNG = encodePng(
  new Uint8Array(4 * 4 * 4).map((_, i) => (i % 4 === 0 || i % 4 === 3 ? 255 : 0)),
  4,
  4,
);
const RED_SVG = `<?xml version="1.0"?>\n<!-- a logo -->\n<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20"><defs><linearGradient id="g"><stop stop-color="red"/></linearGradient></defs><rect width="30" height="20" fill="url(#g)"/></svg>`;
const HTML = "<!DOCTYPE html><html><body>Not found</body></html>";
const dataUri = (mime: string, bytes: Uint8Array | string) => `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`;

/** The RGBA of the centre pixel when the image is drawn over black. */
function centrePixel(src: string): number[] {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="#000"/><image href="${src}" width="20" height="20" preserveAspectRatio="none"/></svg>`;
  return [...new Resvg(svg).render().pixels.subarray((10 * 20 + 10) * 4, (10 * 20 + 10) * 4 + 4)];
}
const RED = [255, 0, 0, 255];
/** Lossy codecs shift colours slightly: compare channels with a tolerance. */
const expectRed = (pixel: number[]) => expect(pixel.every((v, i) => Math.abs(v - RED[i]!) <= 8)).toBe(true);

function options(extra: Partial<FetchImageOptions> = {}): FetchImageOptions & { net: ReturnType<typeof loopbackOnly> } {
  const net = loopbackOnly();
  return { allowPrivate: true, transport: net.transport, resolver: fakeResolver({}), cache: null, net, ...extra };
}

async function failure(promise: Promise<unknown>): Promise<{ status: number; code: string; reason?: string; field: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.details).toHaveLength(1);
    const detail = error.details![0]!;
    return { status: error.status, code: error.code, reason: detail.reason, field: detail.field, message: detail.message };
  }
  throw new Error("expected fetchImage to fail");
}

describe("formats", () => {
  test("the resvg baseline: WebP is the format it silently drops, GIF it draws", () => {
    expect(centrePixel(dataUri("image/webp", RED_WEBP_LOSSY))).toEqual([0, 0, 0, 255]);
    expect(centrePixel(dataUri("image/gif", RED_GIF))).toEqual(RED);
  });

  for (const [name, webp] of [
    ["lossy", RED_WEBP_LOSSY],
    ["lossless", RED_WEBP_LOSSLESS],
  ] as const) {
    test(`${name} WebP over http is converted to a PNG that resvg draws`, async () => {
      const server = serve(() => new Response(webp, { headers: { "content-type": "image/webp" } }));
      const image = await fetchImage("logo_url", server.url("/logo.webp"), options());
      expect(image).toMatchObject({ mime: "image/png", sourceFormat: "webp", width: 8, height: 8 });
      expect(image.dataUri.startsWith("data:image/png;base64,")).toBe(true);
      expectRed(centrePixel(image.dataUri));
    });
  }

  test("GIF is passed through and drawn; the format comes from the bytes, not Content-Type", async () => {
    const server = serve(() => new Response(RED_GIF, { headers: { "content-type": "text/plain" } }));
    const image = await fetchImage("speaker_avatar_url", server.url("/a"), options());
    expect(image).toMatchObject({ mime: "image/gif", sourceFormat: "gif", width: 1, height: 1 });
    expect(centrePixel(image.dataUri)).toEqual(RED);
  });

  test("satori + resvg draw converted WebP and GIF in a real layout", async () => {
    const font = await Bun.file(new URL("../../../assets/fonts/inter-latin-400-normal.woff", import.meta.url)).arrayBuffer();
    for (const [mime, bytes] of [
      ["image/webp", RED_WEBP_LOSSLESS],
      ["image/gif", RED_GIF],
    ] as const) {
      const { dataUri: src } = await fetchImage("logo_url", dataUri(mime, bytes), options());
      const element = {
        type: "div",
        props: { style: { display: "flex", width: 40, height: 40, background: "#000" }, children: { type: "img", props: { src, width: 40, height: 40 } } },
      };
      const svg = await satori(element as never, { width: 40, height: 40, fonts: [{ name: "Inter", data: font, weight: 400 }] });
      const pixels = new Resvg(svg).render().pixels;
      expect([...pixels.subarray((20 * 40 + 20) * 4, (20 * 40 + 20) * 4 + 4)]).toEqual(RED);
    }
  });

  test("PNG and SVG pass through with their size", async () => {
    expect(await fetchImage("logo_url", dataUri("image/png", RED_PNG), options())).toMatchObject({ mime: "image/png", width: 4, height: 4 });
    const svg = await fetchImage("logo_url", dataUri("image/svg+xml", RED_SVG), options());
    expect(svg).toMatchObject({ mime: "image/svg+xml", sourceFormat: "svg", width: 30, height: 20 });
    expect(centrePixel(svg.dataUri)).toEqual(RED);
  });

  test("sniffing reads sizes from headers without decoding", () => {
    const jpegHeader = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0, 50, 0, 70, 3, 0, 0, 0]);
    expect(sniffImage(jpegHeader)).toEqual({ format: "jpeg", width: 70, height: 50 });
    expect(sniffImage(RED_WEBP_LOSSY)).toEqual({ format: "webp", width: 8, height: 8 });
    expect(sniffImage(RED_WEBP_LOSSLESS)).toEqual({ format: "webp", width: 8, height: 8 });
    expect(sniffImage(new TextEncoder().encode('<svg viewBox="0 0 64 32"></svg>'))).toEqual({ format: "svg", width: 64, height: 32 });
    expect(sniffImage(new TextEncoder().encode(HTML))).toBeUndefined();
  });
});

describe("data: URIs", () => {
  test("are decoded locally: no connection at all", async () => {
    const opts = options();
    await fetchImage("logo_url", dataUri("image/gif", RED_GIF), opts);
    expect(opts.net.attempts).toEqual([]);
  });

  test("the size cap applies", async () => {
    const big = dataUri("image/png", new Uint8Array(2_000));
    expect(await failure(fetchImage("logo_url", big, options({ maxBytes: 1_000 })))).toMatchObject({ reason: "too_large", field: "logo_url" });
  });

  test("a declared image type does not make HTML an image; non-base64 is refused", async () => {
    expect((await failure(fetchImage("logo_url", dataUri("image/png", HTML), options()))).reason).toBe("not_an_image");
    expect((await failure(fetchImage("logo_url", "data:image/svg+xml,<svg/>", options()))).reason).toBe("not_an_image");
  });
});

describe("failures are 422 IMAGE_FETCH_FAILED naming the field and the reason", () => {
  test("HTML instead of an image", async () => {
    const server = serve(() => new Response(HTML, { headers: { "content-type": "image/png" } }));
    expect(await failure(fetchImage("author_avatar_url", server.url("/avatar.png"), options()))).toEqual({
      status: 422,
      code: "IMAGE_FETCH_FAILED",
      reason: "not_an_image",
      field: "author_avatar_url",
      message: "the URL returned an HTML page, not an image",
    });
  });

  test("a known but unsupported image format", async () => {
    const bmp = new Uint8Array([
      0x42, 0x4d, 0x3a, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 0x28, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0x18, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0,
    ]);
    const result = await failure(fetchImage("logo_url", dataUri("image/bmp", bmp), options()));
    expect(result.reason).toBe("unsupported_format");
    expect(result.message).toContain("BMP");
  });

  test("a WebP libwebp cannot decode is unsupported_format, never a blank hole", async () => {
    const broken = Buffer.concat([RED_WEBP_LOSSY.subarray(0, 30), Buffer.alloc(20, 0xaa)]);
    expect((await failure(fetchImage("logo_url", dataUri("image/webp", broken), options()))).reason).toBe("unsupported_format");
  });

  test("an SVG that points at files or URLs is refused", async () => {
    for (const svg of [
      '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><image href="/etc/ogsmith/secret.png" width="9" height="9"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="http://10.0.0.1/x.png"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><rect style="fill: url(http://10.0.0.1/x)"/></svg>',
      '<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>',
    ]) {
      expect((await failure(fetchImage("logo_url", dataUri("image/svg+xml", svg), options()))).reason).toBe("unsupported_format");
    }
  });

  test("an SVG whose <use> references multiply its drawing past the bound is refused; a logo that reuses a shape is not", async () => {
    // Ten <use> of ten <use> of … one rectangle: four levels draw over 10,000 times.
    const pyramid = (levels: number) => {
      let defs = '<g id="g0"><rect width="20" height="20" fill="red"/></g>';
      for (let l = 1; l <= levels; l++) defs += `<g id="g${l}">${`<use href="#g${l - 1}"/>`.repeat(10)}</g>`;
      return `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><defs>${defs}</defs><use href="#g${levels}"/></svg>`;
    };
    const refused = await failure(fetchImage("logo_url", dataUri("image/svg+xml", pyramid(4)), options()));
    expect(refused.reason).toBe("unsupported_format");
    expect(refused.message).toContain("draws at most 10,000 elements");
    const cycle = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><g id="a"><rect width="9" height="9"/><use href="#a"/></g></svg>';
    expect((await failure(fetchImage("logo_url", dataUri("image/svg+xml", cycle), options()))).message).toContain("refers to itself");
    expect(await fetchImage("logo_url", dataUri("image/svg+xml", pyramid(2)), options())).toMatchObject({ mime: "image/svg+xml", sourceFormat: "svg" });
    // A gradient is a paint looked up, not drawn again: 3,000 shapes filled with one of 8 stops pass.
    const stops = '<stop offset="0" stop-color="red"/>'.repeat(8);
    const illustration = `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><defs><linearGradient id="g">${stops}</linearGradient></defs>${'<rect width="1" height="1" fill="url(#g)"/>'.repeat(3000)}</svg>`;
    expect(await fetchImage("logo_url", dataUri("image/svg+xml", illustration), options())).toMatchObject({ sourceFormat: "svg" });
  });

  test("a prefixed SVG element that names a local file is refused (resvg would draw the file)", async () => {
    // A red PNG on disk, drawn by resvg through `<s:image>` where `s` is bound to the SVG namespace.
    const dir = mkdtempSync(join(tmpdir(), "ogsmith-svg-"));
    const file = join(dir, "secret.png");
    writeFileSync(file, RED_PNG);
    try {
      const attack = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:s="http://www.w3.org/2000/svg" width="20" height="20"><s:image href="${file}" width="20" height="20" preserveAspectRatio="none"/></svg>`;
      // The baseline that makes this test able to fail: resvg really reads the file.
      const drawn = new Resvg(attack).render().pixels;
      expectRed([...drawn.subarray((10 * 20 + 10) * 4, (10 * 20 + 10) * 4 + 4)]);
      const refused = await failure(fetchImage("logo_url", dataUri("image/svg+xml", attack), options()));
      expect(refused.reason).toBe("unsupported_format");
      expect(refused.message).toContain("image");
      // The same trick one level down, inside a nested SVG data: URI.
      const nested = `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><image href="${dataUri("image/svg+xml", attack)}" width="20" height="20"/></svg>`;
      expect((await failure(fetchImage("logo_url", dataUri("image/svg+xml", nested), options()))).reason).toBe("unsupported_format");
      // xlink:href under another prefix, and a `use` pointing outside the document.
      for (const svg of [
        `<svg xmlns="http://www.w3.org/2000/svg" xmlns:l="http://www.w3.org/1999/xlink"><image l:href="${file}"/></svg>`,
        `<svg xmlns="http://www.w3.org/2000/svg"><use href="${file}#a"/></svg>`,
        '<svg xmlns="http://www.w3.org/2000/svg"><style>@import url(/etc/x.css);</style></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject/></svg>',
      ]) {
        expect((await failure(fetchImage("logo_url", dataUri("image/svg+xml", svg), options()))).reason).toBe("unsupported_format");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a logo as editors save it (stylesheet, metadata in other namespaces, class) still draws", async () => {
    const logo = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" width="30" height="20"><sodipodi:namedview pagecolor="#fff"/><metadata><x xmlns="urn:x">y</x></metadata><style>.a{fill:red}</style><rect class="a" width="30" height="20"/></svg>`;
    const image = await fetchImage("logo_url", dataUri("image/svg+xml", logo), options());
    expect(centrePixel(image.dataUri)).toEqual(RED);
  });

  test("a picture too large to decode safely, by its header", async () => {
    const huge = new Uint8Array(RED_PNG);
    new DataView(huge.buffer).setUint32(16, 20_000);
    new DataView(huge.buffer).setUint32(20, 20_000);
    expect((await failure(fetchImage("logo_url", dataUri("image/png", huge), options()))).reason).toBe("too_large");
  });

  test("more than 5 MiB over http", async () => {
    const server = serve(() => new Response(new Uint8Array(5 * 1024 * 1024 + 1)));
    expect((await failure(fetchImage("logo_url", server.url("/big.png"), options()))).reason).toBe("too_large");
  });

  test("timeout", async () => {
    const server = await listenTcp();
    cleanups.push(() => server.stop());
    expect((await failure(fetchImage("logo_url", `http://127.0.0.1:${server.port}/slow.png`, options({ timeoutMs: 300 })))).reason).toBe("timeout");
  });

  test("HTTP error status", async () => {
    const server = serve(() => new Response("gone", { status: 404 }));
    const result = await failure(fetchImage("logo_url", server.url("/missing.png"), options()));
    expect(result).toMatchObject({ reason: "http_error", message: "the server answered HTTP 404" });
  });

  test("connection refused", async () => {
    const port = await unusedPort();
    expect((await failure(fetchImage("logo_url", `http://127.0.0.1:${port}/x.png`, options()))).reason).toBe("network_error");
  });

  test("loopback with OG_ALLOW_PRIVATE_NETWORKS off, before any request", async () => {
    const server = serve(() => new Response(RED_GIF));
    expect((await failure(fetchImage("logo_url", server.url("/x.gif"), options({ allowPrivate: false })))).reason).toBe("blocked_address");
    expect(server.requests).toHaveLength(0);
  });

  test("a redirect to a name that resolves to the metadata address", async () => {
    const server = serve(() => new Response(null, { status: 302, headers: { location: "http://evil.test/latest/meta-data" } }));
    const opts = options({
      allowPrivate: false,
      allowAddresses: ["127.0.0.1"],
      resolver: fakeResolver({ "cdn.test": ["127.0.0.1"], "evil.test": ["169.254.169.254"] }),
    });
    expect((await failure(fetchImage("logo_url", `http://cdn.test:${server.port}/logo.png`, opts))).reason).toBe("blocked_address");
    expect(opts.net.attempts).toEqual(["127.0.0.1"]);
    expect(opts.net.violations).toEqual([]);
  });

  test("more than 3 redirects", async () => {
    const server = serve((request) => {
      const n = Number(new URL(request.url).pathname.slice(1));
      return new Response(null, { status: 302, headers: { location: `/${n + 1}` } });
    });
    expect((await failure(fetchImage("logo_url", server.url("/0"), options()))).reason).toBe("too_many_redirects");
    expect(server.requests).toHaveLength(4);
  });
});

describe("cache", () => {
  test("a repeated URL is served from the cache: the server sees one request", async () => {
    const server = serve(() => new Response(RED_WEBP_LOSSY));
    const cache = createImageCache();
    const first = await fetchImage("logo_url", server.url("/logo"), options({ cache }));
    const second = await fetchImage("speaker_avatar_url", server.url("/logo"), options({ cache }));
    expect(second).toBe(first);
    expect(server.requests).toHaveLength(1);
  });

  test("concurrent fetches of one URL share a single request", async () => {
    const server = serve(() => new Response(RED_GIF));
    const cache = createImageCache();
    const results = await Promise.all([1, 2, 3].map(() => fetchImage("logo_url", server.url("/same"), options({ cache }))));
    expect(new Set(results).size).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  test("entries expire after the TTL; failures are not cached", async () => {
    let now = 0;
    let status = 500;
    const server = serve(() => new Response(RED_GIF, { status }));
    const cache = createImageCache({ ttlMs: 1_000, now: () => now });
    expect((await failure(fetchImage("logo_url", server.url("/t"), options({ cache })))).reason).toBe("http_error");
    status = 200;
    await fetchImage("logo_url", server.url("/t"), options({ cache }));
    now = 1_000;
    await fetchImage("logo_url", server.url("/t"), options({ cache }));
    expect(server.requests).toHaveLength(2);
    now = 1_001;
    await fetchImage("logo_url", server.url("/t"), options({ cache }));
    expect(server.requests).toHaveLength(3);
  });
});
