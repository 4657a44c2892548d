/**
 * Render workers have no network (src/render/sandbox/no-network.ts): satori fetches an `http…` image
 * source itself with the global fetch, outside the SSRF guard, so inside a worker every way to
 * open a connection throws. Checked against a loopback HTTP server that counts what reaches it:
 * the same card drawn on the main thread (network on) does reach it, so the test can fail.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../../src/logger.ts";
import { renderTemplate } from "../../../src/render/engines/in-process.ts";
import { RenderPool } from "../../../src/render/sandbox/pool.ts";
import type { TemplateDefinition } from "../../../src/templates/types.ts";
import { serveHttp, type HttpFixture } from "../../support/loopback.ts";
import { decodePng, fractionNear, solidPngDataUri } from "../../support/png.ts";

const solidPngBytes = () => Buffer.from(solidPngDataUri(8, 8, [0, 200, 120]).split(",")[1]!, "base64");

let server: HttpFixture;
let dir: string;
let probeDir: string;

/** Not loopback (satori itself refuses loopback sources), and never reached: TEST-NET-3. */
const PUBLIC_IMAGE = "http://203.0.113.7/logo.png";

const GREEN: [number, number, number] = [0, 200, 0];
const RED: [number, number, number] = [200, 0, 0];
const BLUE: [number, number, number] = [0, 0, 200];

/** A card whose only image is a plain http URL, as no validated template may have. */
const remoteCard = (url: string): TemplateDefinition => ({
  id: "remote",
  description: "An image straight from the network (test).",
  fields: [{ name: "title", type: "text" }],
  render: (_fields, ctx) => ({
    type: "div",
    props: {
      style: { display: "flex", width: ctx.width, height: ctx.height, backgroundColor: "#102030" },
      children: [{ type: "img", props: { src: url, width: 100, height: 100 } }],
    },
  }),
});

beforeAll(() => {
  server = serveHttp(() => new Response(solidPngBytes(), { headers: { "content-type": "image/png" } }));
  dir = mkdtempSync(join(tmpdir(), "ogsmith-no-network-"));
  // An operator template (operator code runs in the render worker) that watches the worker's
  // fetch: "satori" draws a plain http image source, "direct" calls fetch on the loopback server
  // itself, and "report" paints what happened: green when both calls met the disabled fetch,
  // blue when satori never called it, red when anything reached the network.
  writeFileSync(
    join(dir, "netprobe.ts"),
    `const outcome = { satori: "not called", direct: "not called" };
    const inner = globalThis.fetch;
    let current = "satori";
    globalThis.fetch = (...args) => {
      try {
        const answer = inner(...args);
        outcome[current] = "fetched";
        return answer;
      } catch (error) {
        outcome[current] = error?.name ?? String(error);
        throw error;
      }
    };
    const card = (ctx, color, children = []) => ({ type: "div", props: { style: { display: "flex", width: ctx.width, height: ctx.height, backgroundColor: color }, children } });
    export default {
      id: "netprobe",
      description: "Watches the render worker's fetch (test).",
      fields: [{ name: "title", type: "text" }],
      render(fields, ctx) {
        if (fields.title === "satori") {
          current = "satori";
          return card(ctx, "#102030", [{ type: "img", props: { src: ${JSON.stringify(PUBLIC_IMAGE)}, width: 100, height: 100 } }]);
        }
        if (fields.title === "direct") {
          current = "direct";
          try { globalThis.fetch(${JSON.stringify(server.url("/direct"))}).catch(() => {}); } catch {}
          return card(ctx, "#102030");
        }
        const disabled = outcome.satori === "NetworkDisabledError" && outcome.direct === "NetworkDisabledError";
        return card(ctx, disabled ? "rgb(0, 200, 0)" : outcome.satori === "not called" ? "rgb(0, 0, 200)" : "rgb(200, 0, 0)");
      },
    };\n`,
  );
  probeDir = mkdtempSync(join(tmpdir(), "ogsmith-no-network-probe-"));
  writeFileSync(
    join(probeDir, "probe-worker.ts"),
    `import ${JSON.stringify(new URL("../../../src/render/sandbox/no-network.ts", import.meta.url).pathname)};
    import http from "node:http";
    import https from "node:https";
    import net from "node:net";
    import dgram from "node:dgram";
    declare const self: Worker;
    self.onmessage = async (event) => {
      const url = event.data;
      const port = Number(new URL(url).port);
      const attempts = {
        fetch: () => fetch(url),
        WebSocket: () => new WebSocket(url.replace("http", "ws")),
        "Bun.connect": () => Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }),
        "http.get": () => new Promise((resolve, reject) => http.get(url, resolve).on("error", reject)),
        "https.get": () => new Promise((resolve, reject) => https.get(url.replace("http:", "https:"), resolve).on("error", reject)),
        "net.connect": () => new Promise((resolve, reject) => net.connect(port, "127.0.0.1").on("connect", resolve).on("error", reject)),
        "dgram.createSocket": () => dgram.createSocket("udp4"),
      };
      const outcome = {};
      for (const [name, attempt] of Object.entries(attempts)) {
        try {
          await Promise.race([attempt(), new Promise((_, reject) => setTimeout(() => reject(new Error("no answer")), 2000))]);
          outcome[name] = "connected";
        } catch (error) {
          outcome[name] = error?.name === "NetworkDisabledError" ? "disabled" : String(error);
        }
      }
      self.postMessage(outcome);
    };\n`,
  );
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(probeDir, { recursive: true, force: true });
});

describe("render workers have no network", () => {
  test("every network API throws inside a worker that loaded no-network.ts; nothing reaches the listener", async () => {
    const worker = new Worker(join(probeDir, "probe-worker.ts"));
    try {
      const outcome = await new Promise<Record<string, string>>((resolve, reject) => {
        worker.onmessage = (event) => resolve(event.data);
        worker.onerror = (event) => reject(new Error(event.message));
        worker.postMessage(server.url("/probe"));
      });
      expect(outcome).toEqual({
        fetch: "disabled",
        WebSocket: "disabled",
        "Bun.connect": "disabled",
        "http.get": "disabled",
        "https.get": "disabled",
        "net.connect": "disabled",
        "dgram.createSocket": "disabled",
      });
      expect(server.requests).toHaveLength(0);
    } finally {
      worker.terminate();
    }
  });

  test("satori given an http image source inside a render worker meets the disabled fetch; nothing reaches the listener", async () => {
    // Control: on the main thread satori fetches such a source with the global fetch (recorded here, never sent).
    const seen: string[] = [];
    const real = globalThis.fetch;
    globalThis.fetch = Object.assign(async (input: string | URL | Request) => {
      seen.push(String(input));
      throw new Error("recorded, not sent");
    }, real);
    try {
      await renderTemplate(remoteCard(PUBLIC_IMAGE), {}, { width: 400, height: 210, theme: "dark", images: {} }).catch(() => {});
    } finally {
      globalThis.fetch = real;
    }
    expect(seen).toEqual([PUBLIC_IMAGE]);

    const pool = new RenderPool({ workers: 1, logger: silentLogger, templatesDir: dir, warmUp: false });
    try {
      const job = (title: string) => ({ template: "netprobe", theme: "dark" as const, fields: { title }, images: {}, width: 400, height: 210 });
      // satori gives up on the image (draws without it); the direct call throws at once.
      await pool.render(job("satori")).catch(() => {});
      await pool.render(job("direct")).catch(() => {});
      const report = decodePng((await pool.render(job("report"))).bytes);
      expect(fractionNear(report, 0, 0, 400, 210, RED)).toBe(0);
      expect(fractionNear(report, 0, 0, 400, 210, BLUE)).toBe(0);
      expect(fractionNear(report, 0, 0, 400, 210, GREEN)).toBeGreaterThan(0.99);
      expect(server.requests).toHaveLength(0);
      expect(pool.stats).toMatchObject({ ready: 1, replaced: 0 });
    } finally {
      await pool.close();
    }
  });
});
