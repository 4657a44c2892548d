/**
 * Images without hosting (docs/templates.md, Images; docs/api.md, body limits): an `image_url`
 * value that is a data: URI is bounded by what it decodes to (5 MiB, the bound of any image),
 * not by the 2,048 characters of a URL, in POST /api/generate and in the previews (the API's and
 * the dashboard's), whose bodies may be 8 MiB; a signed URL's values, and POST /api/image-urls
 * that signs them, keep 2,048. Drawn on OG_TEST_ENGINE's engine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_IMAGE_BODY_BYTES } from "../../src/http/body.ts";
import { buildSignedUrl } from "../../src/signing/index.ts";
import { testEngine } from "../support/engines.ts";
import { startTestService, type TestService } from "../support/harness.ts";
import { decodePng, fractionNear, paddedPngDataUri, type DecodedPng } from "../support/png.ts";

const MAGENTA: [number, number, number] = [255, 0, 255];
const MiB = 1024 * 1024;
/** What a data: URI's payload decodes to. */
const decodedBytes = (uri: string) => Buffer.from(uri.slice(uri.indexOf(",") + 1), "base64").byteLength;

let s: TestService;
let key: string;
let cookie: string;
let origin: string;

beforeAll(async () => {
  s = await startTestService({ OG_TEST_CLOCK: "0", OG_RENDER_ENGINE: testEngine() }, { renderer: { pool: { warmUp: false } } });
  key = (await s.createAccount({ plan: "custom", quota: 1_000, requests_per_second: 1_000 })).apiKey;
  origin = new URL(s.url).origin;
  const session = await fetch(`${s.url}/dashboard/api/session`, {
    method: "POST",
    headers: { origin, "content-type": "application/json" },
    body: JSON.stringify({ api_key: key }),
  });
  expect(session.status).toBe(200);
  cookie = session.headers.get("set-cookie")!.split(";")[0]!;
});
afterAll(async () => {
  await s.stop();
});

const used = async () => ((await (await s.api("/api/user/usage", { key })).json()) as { used: number }).used;
const png = async (res: Response): Promise<DecodedPng> => decodePng(new Uint8Array(await res.arrayBuffer()));
const dashboard = (path: string, body: unknown) =>
  fetch(`${s.url}/dashboard/api${path}`, { method: "POST", headers: { origin, cookie, "content-type": "application/json" }, body: JSON.stringify(body) });

async function expectProblem(res: Response, status: number, code: string, field: string, message: RegExp | string): Promise<void> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: boolean; code: string; details: { field: string; message: string }[] };
  expect(body).toMatchObject({ error: true, code });
  expect(body.details).toEqual([{ field, message: typeof message === "string" ? message : expect.stringMatching(message) }]);
}

/** A card with one image field drawn 300×300 at (100, 100) on a flat dark blue. */
const AVATAR = {
  id: "avatar",
  fields: [
    { name: "title", type: "text" },
    { name: "avatar", type: "image_url" },
  ],
  sample: { title: "Sample" },
  html: '<div style="display: flex; width: 100%; height: 100%; background-color: #203040"><img src="{{avatar}}" width="300" height="300" style="margin: 100px"></div>',
};

/** A 64×64 magenta PNG padded to about `bytes` decoded, as a data: URI far over 2,048 characters. */
const avatarOf = (bytes: number) => paddedPngDataUri(64, 64, MAGENTA, bytes);

describe("POST /api/generate", () => {
  test("a data: avatar of 4.9 MiB (6.5 million characters) is drawn; the body stays within 8 MiB", async () => {
    const avatar = avatarOf(4.9 * MiB);
    expect(avatar.length).toBeGreaterThan(6_000_000);
    expect(decodedBytes(avatar)).toBeLessThanOrEqual(5 * MiB);
    const before = await used();
    const res = await s.api("/api/generate", { key, json: { title: "Inline avatar", speaker_name: "Ada", speaker_avatar_url: avatar } });
    expect(res.status).toBe(200);
    const image = await png(res);
    // The event card's speaker avatar: a 92 px disc at (72, 478).
    expect(fractionNear(image, 85, 490, 66, 66, MAGENTA, 10)).toBeGreaterThan(0.95);
    expect(fractionNear(image, 300, 0, 900, 630, MAGENTA, 10)).toBe(0);
    expect(await used()).toBe(before + 1);
  });

  test("a data: avatar decoding to more than 5 MiB is a 400 naming the field; nothing counted", async () => {
    const avatar = avatarOf(5 * MiB + 64);
    expect(decodedBytes(avatar)).toBeGreaterThan(5 * MiB);
    const before = await used();
    const res = await s.api("/api/generate", { key, json: { title: "Too large", speaker_avatar_url: avatar, logo_url: "data:image/png;base64,AAAA" } });
    await expectProblem(
      res,
      400,
      "VALIDATION_ERROR",
      "speaker_avatar_url",
      `must decode to at most 5 MiB (5242880 bytes) as a data: image (got ${decodedBytes(avatar)} bytes)`,
    );
    expect(await used()).toBe(before);
  });

  test("an http(s) URL is still held to 2,048 characters", async () => {
    const res = await s.api("/api/generate", { key, json: { title: "Long URL", logo_url: `https://example.com/${"a".repeat(2048)}` } });
    await expectProblem(res, 400, "VALIDATION_ERROR", "logo_url", "must be at most 2048 characters (got 2068)");
  });

  test("a body over 8 MiB is the 413 envelope, declared or streamed", async () => {
    const huge = JSON.stringify({ title: "x", speaker_avatar_url: `data:image/png;base64,${"A".repeat(MAX_IMAGE_BODY_BYTES)}` });
    await expectProblem413(await s.api("/api/generate", { key, body: huge, headers: { "content-type": "application/json" } }));
    const bytes = new TextEncoder().encode(huge);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 1024 * 1024) controller.enqueue(bytes.subarray(at, at + 1024 * 1024));
        controller.close();
      },
    });
    await expectProblem413(await s.api("/api/generate", { key, body: stream, headers: { "content-type": "application/json" } }));
  });
});

async function expectProblem413(res: Response): Promise<void> {
  expect(res.status).toBe(413);
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  expect(await res.json()).toEqual({ error: true, code: "PAYLOAD_TOO_LARGE", message: "Request body is larger than 8 MiB." });
}

describe("previews", () => {
  test("POST /api/templates/preview draws a data: image of 1 MiB given in values", async () => {
    const avatar = avatarOf(MiB);
    expect(avatar.length).toBeGreaterThan(1_000_000);
    const res = await s.api("/api/templates/preview", { key, json: { template: AVATAR, values: { title: "Preview", avatar } } });
    expect(res.status).toBe(200);
    const image = await png(res);
    // The PREVIEW mark crosses the whole card, translucent: most of the image is still magenta.
    expect(fractionNear(image, 110, 110, 280, 280, MAGENTA, 40)).toBeGreaterThan(0.7);
    expect(fractionNear(image, 500, 0, 700, 630, MAGENTA, 40)).toBe(0);
  });

  test("a preview's data: image over 5 MiB is a 400 naming values.<field>", async () => {
    const res = await s.api("/api/templates/preview", { key, json: { template: AVATAR, values: { avatar: avatarOf(5 * MiB + 64) } } });
    await expectProblem(res, 400, "VALIDATION_ERROR", "values.avatar", /^must decode to at most 5 MiB \(5242880 bytes\) as a data: image/);
  });

  test("the dashboard's previews (template editor and playground) draw a data: image too", async () => {
    const avatar = avatarOf(512 * 1024);
    const editor = await dashboard("/account-templates/preview", { template: AVATAR, values: { avatar } });
    expect(editor.status).toBe(200);
    expect(fractionNear(await png(editor), 110, 110, 280, 280, MAGENTA, 40)).toBeGreaterThan(0.7);

    const playground = await dashboard("/preview", { template: "event", title: "Playground", speaker_name: "Ada", speaker_avatar_url: avatar });
    expect(playground.status).toBe(200);
    expect(fractionNear(await png(playground), 85, 490, 66, 66, MAGENTA, 40)).toBeGreaterThan(0.7);
  });
});

describe("signed URLs keep 2,048 characters a value", () => {
  test("POST /api/image-urls refuses a data: image over 2,048 characters, naming the field; a short one is signed", async () => {
    const created = await s.api("/api/signing-keys", { key, json: {} });
    expect(created.status).toBe(201);
    const signingKey = (await created.json()) as { id: string; secret: string };

    const long = avatarOf(4096);
    const refused = await s.api("/api/image-urls", { key, json: { signing_key_id: signingKey.id, title: "Signed", speaker_avatar_url: long } });
    await expectProblem(
      refused,
      400,
      "VALIDATION_ERROR",
      "speaker_avatar_url",
      /^must be at most 2048 characters in a signed URL \(got \d+\); a larger data: image/,
    );

    const short = avatarOf(0);
    expect(short.length).toBeLessThan(2048);
    const signed = await s.api("/api/image-urls", { key, json: { signing_key_id: signingKey.id, title: "Signed", speaker_avatar_url: short } });
    expect(signed.status).toBe(200);

    // The URL itself, signed offline with the same value: refused the same way (not the 8 KiB cap).
    const url = buildSignedUrl({
      baseUrl: s.url,
      keyId: signingKey.id,
      secret: signingKey.secret,
      template: "event",
      ext: "png",
      params: { title: "Signed", speaker_avatar_url: long },
    });
    expect(new URL(url).pathname.length + new URL(url).search.length).toBeLessThan(8 * 1024);
    await expectProblem(await fetch(url), 400, "VALIDATION_ERROR", "speaker_avatar_url", /^must be at most 2048 characters in a signed URL/);
  });
});
