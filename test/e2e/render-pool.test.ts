/**
 * The service render path end to end: POST /api/generate through the worker
 * pool and the rendered-PNG cache of a real service on port 0.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodePng } from "../support/png.ts";
import { startRenderService, type RenderTestService } from "../support/render-service.ts";
import { waitFor } from "../support/wait.ts";

const png = async (res: Response) => new Uint8Array(await res.arrayBuffer());

describe("render pool and PNG cache", () => {
  let svc: RenderTestService;
  let gateDir: string;
  const gate = (name: "started" | "release" | "finished") => join(gateDir, name);
  beforeAll(async () => {
    // A template whose render, for the title "hold", announces that it started and then blocks
    // its thread until the test releases it (or 10 s pass, so a broken pool cannot hang the run).
    // Blocking is synchronous on purpose: if renders ran on the main thread, nothing else — the
    // HTTP server included — could run until it ended.
    gateDir = mkdtempSync(join(tmpdir(), "ogsmith-e2e-gate-"));
    writeFileSync(
      join(gateDir, "gate.ts"),
      `import { existsSync, writeFileSync } from "node:fs";
      const pause = new Int32Array(new SharedArrayBuffer(4));
      export default {
        id: "gate",
        description: "Blocks its render thread on title 'hold' until released (test).",
        fields: [{ name: "title", type: "text", required: true }],
        render(fields, ctx) {
          if (fields.title === "hold") {
            writeFileSync(${JSON.stringify(join(gateDir, "started"))}, "");
            const deadline = Date.now() + 10_000;
            while (!existsSync(${JSON.stringify(join(gateDir, "release"))}) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 2);
            writeFileSync(${JSON.stringify(join(gateDir, "finished"))}, "");
          }
          return { type: "div", props: { style: { display: "flex", width: ctx.width, height: ctx.height, backgroundColor: "#224466" }, children: [] } };
        },
      };\n`,
    );
    svc = await startRenderService({ OG_RENDER_WORKERS: "2", OG_TEMPLATES_DIR: gateDir });
    await svc.renderer.pool.ready();
  });
  afterAll(async () => {
    await svc.stop();
    rmSync(gateDir, { recursive: true, force: true });
  });

  test("a repeated body is answered from the cache with identical bytes, and still counts", async () => {
    const body = { title: "Cache me", subtitle: "once", theme: "light" };
    const before = await svc.used();
    const renderedBefore = svc.renderer.pool.stats.rendered;

    const first = await svc.generate(body);
    expect(first.status).toBe(200);
    const firstBytes = await png(first);
    // Same fields in another key order: the same image.
    const second = await svc.generate({ theme: "light", subtitle: "once", title: "Cache me" });
    expect(second.status).toBe(200);
    expect(await png(second)).toEqual(firstBytes);
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(svc.renderer.pool.stats.rendered).toBe(renderedBefore + 1);
    expect(await svc.used()).toBe(before + 2);

    // Anything that changes the pixels is a different key.
    const dark = await svc.generate({ ...body, theme: "dark" });
    expect(await png(dark)).not.toEqual(firstBytes);
    expect(svc.renderer.pool.stats.rendered).toBe(renderedBefore + 2);
    expect(await svc.used()).toBe(before + 3);
  });

  test("identical requests in flight share one render (single-flight), each one counted", async () => {
    const before = await svc.used();
    const renderedBefore = svc.renderer.pool.stats.rendered;
    const responses = await Promise.all(Array.from({ length: 4 }, () => svc.generate({ title: "Four at once", width: 1600, height: 840 })));
    const bodies = await Promise.all(responses.map(png));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const bytes of bodies) expect(bytes).toEqual(bodies[0]!);
    expect(svc.renderer.pool.stats.rendered).toBe(renderedBefore + 1);
    expect(await svc.used()).toBe(before + 4);
  });

  test("width and height are honoured by the pool path", async () => {
    for (const [width, height] of [
      [200, 200],
      [640, 320],
      [1080, 1920],
      [2400, 1260],
    ]) {
      const res = await svc.generate({ title: `Sized ${width}×${height}`, width, height });
      expect(res.status).toBe(200);
      const decoded = decodePng(await png(res));
      expect([decoded.width, decoded.height]).toEqual([width!, height!]);
    }
  });

  test("the main thread answers /healthz and usage while a render holds its thread", async () => {
    let settled = false;
    const held = svc.generate({ template: "gate", title: "hold" }).then(async (r) => {
      settled = true;
      return { status: r.status, body: await r.arrayBuffer() };
    });
    // The render has started and is blocking whichever thread runs it.
    await waitFor(() => existsSync(gate("started")), "the gated render to start");

    const health = await fetch(`${svc.url}/healthz`);
    expect(health.status).toBe(200);
    const usage = await fetch(`${svc.url}/api/user/usage`, { headers: { "x-api-key": svc.key } });
    expect(usage.status).toBe(200);
    // Both answered while the render was still blocked: it runs on another thread.
    expect(existsSync(gate("finished"))).toBe(false);
    expect(settled).toBe(false);

    writeFileSync(gate("release"), "");
    const result = await held;
    expect(result.status).toBe(200);
    expect(existsSync(gate("finished"))).toBe(true);
  });
});

describe("overload and crashes", () => {
  let svc: RenderTestService;
  let templatesDir: string;
  beforeAll(async () => {
    templatesDir = mkdtempSync(join(tmpdir(), "ogsmith-e2e-templates-"));
    writeFileSync(
      join(templatesDir, "crashy.ts"),
      `export default {
        id: "crashy",
        description: "Ends its render process on title 'crash' (test).",
        fields: [{ name: "title", type: "text", required: true }],
        render(fields, ctx) {
          if (fields.title === "crash") process.exit(9);
          return { type: "div", props: { style: { display: "flex", width: ctx.width, height: ctx.height, backgroundColor: "#335577" }, children: [] } };
        },
      };\n`,
    );
    // One worker and one waiting slot: a burst overflows at once.
    svc = await startRenderService({ OG_RENDER_WORKERS: "1", OG_TEMPLATES_DIR: templatesDir }, { pool: { maxQueue: 1, warmUp: false } });
    await svc.renderer.pool.ready();
  });
  afterAll(async () => {
    await svc.stop();
    rmSync(templatesDir, { recursive: true, force: true });
  });

  test("a burst beyond the queue gets 503 SERVER_BUSY with Retry-After, and only successes count", async () => {
    const before = await svc.used();
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => svc.generate({ title: `Burst ${i}`, width: 2400, height: 1260 })));
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    const busy = responses.filter((r) => r.status === 503);
    expect(busy.length).toBeGreaterThanOrEqual(1);
    for (const res of busy) {
      // The expected wait in whole seconds: here one waiting render, well under a minute.
      expect(res.headers.get("retry-after")).toMatch(/^[1-9]\d?$/);
      expect(await res.json()).toMatchObject({ error: true, code: "SERVER_BUSY" });
    }
    await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.arrayBuffer()));
    expect(await svc.used()).toBe(before + statuses.filter((s) => s === 200).length);
  });

  test("a render process that crashes fails its request with 422 RENDER_FAILED, counts nothing, and is replaced", async () => {
    const before = await svc.used();
    const crashed = await svc.generate({ template: "crashy", title: "crash" });
    expect(crashed.status).toBe(422);
    const body = (await crashed.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: true, code: "RENDER_FAILED" });
    expect(JSON.stringify(body)).not.toContain("exit");
    expect(await svc.used()).toBe(before);

    const next = await svc.generate({ template: "crashy", title: "fine" });
    expect(next.status).toBe(200);
    expect(decodePng(await png(next)).width).toBe(1200);
    const builtIn = await svc.generate({ title: "after the crash" });
    expect(builtIn.status).toBe(200);
    await builtIn.arrayBuffer();
    expect(svc.renderer.pool.stats.replaced).toBe(1);
    expect(await svc.used()).toBe(before + 2);
  });
});
