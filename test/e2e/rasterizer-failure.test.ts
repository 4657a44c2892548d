/**
 * A card the rasterizer cannot draw is a 422 for that request, and the server goes on serving
 * (src/render/engines/rasterize.ts). The real server runs as a child process (`bun src/main.ts serve`)
 * with one render worker: resvg 0.3x panics on a translucent layer far outside the canvas, and
 * with a binding that lets that panic abort, the child dies — this test then fails on the next
 * request instead of the test runner dying with it. The layer arrives as an SVG image in a
 * built-in template's image field, and as an account's own template (generate and preview).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeEnv } from "../support/harness.ts";
import { decodePng, solidPngDataUri } from "../support/png.ts";
import { spawnServe } from "../support/process.ts";
import { FAR_TRANSLUCENT_SVG } from "../unit/templates/account/fixtures/off-canvas-svg.ts";

const ADMIN = "rasterizer-admin-token-0123456789";
const children: Subprocess[] = [];
let dir: string;
let server: Awaited<ReturnType<typeof spawnServe>>;
let key: string;

const post = (path: string, json: unknown, headers: Record<string, string> = { "x-api-key": key }) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(json) });
const used = async () => ((await (await fetch(`${server.url}/api/user/usage`, { headers: { "x-api-key": key } })).json()) as { used: number }).used;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-rasterizer-"));
  server = await spawnServe({ adminToken: ADMIN, env: { ...(await storeEnv(join(dir, "ogsmith.db"))), RUST_BACKTRACE: "0" }, children, timeoutMs: 60_000 });
  const created = await (
    await post("/admin/accounts", { email: "far@example.com", plan: "custom", quota: 1_000, requests_per_second: 1_000 }, { authorization: `Bearer ${ADMIN}` })
  ).json();
  key = created.api_key as string;
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

test("an SVG logo with a layer far off its canvas: 422 RENDER_FAILED, nothing counted, and the next card renders", async () => {
  const before = await used();
  const far = `data:image/svg+xml;base64,${Buffer.from(FAR_TRANSLUCENT_SVG).toString("base64")}`;
  for (let i = 0; i < 3; i++) {
    const res = await post("/api/generate", { template: "event", title: `Far logo ${i}`, logo_url: far });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("RENDER_FAILED");
    expect(body.message).not.toContain("unwrap");
  }
  expect(server.proc.exitCode).toBeNull();

  const res = await post("/api/generate", { template: "event", title: "Still serving" });
  expect(res.status).toBe(200);
  const png = decodePng(new Uint8Array(await res.arrayBuffer()));
  expect([png.width, png.height]).toEqual([1200, 630]);
  expect(await used()).toBe(before + 1);
});

test("account templates that put a layer far off the canvas: 422 RENDER_FAILED on generate and preview, nothing counted, and the server goes on", async () => {
  const before = await used();
  const far = {
    scaled: `<div style="transform: scale(10)"><img src="${solidPngDataUri(4, 4, [255, 0, 0])}" width="20" height="20"></div>`,
    wide: `<div class="flex w-[10000px] justify-end opacity-50"><div class="text-4xl">{{title}}</div></div>`,
  };
  const fields = [{ name: "title", type: "text", required: false }];
  for (const [id, html] of Object.entries(far)) {
    expect((await post("/api/templates", { id, name: id, html, fields })).status).toBe(201);
    const res = await post("/api/generate", { template: id, title: "Far" });
    expect({ status: res.status, code: ((await res.json()) as { code: string }).code }).toEqual({ status: 422, code: "RENDER_FAILED" });
  }
  const preview = await post("/api/templates/preview", { template: { id: "scaled-draft", name: "draft", html: far.scaled, fields } });
  expect({ status: preview.status, code: ((await preview.json()) as { code: string }).code }).toEqual({ status: 422, code: "RENDER_FAILED" });
  expect(server.proc.exitCode).toBeNull();

  const res = await post("/api/generate", { template: "event", title: "Still serving after the account's cards" });
  expect(res.status).toBe(200);
  expect(await used()).toBe(before + 1);
});
