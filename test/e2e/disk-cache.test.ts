/**
 * The persistent render cache through the real service: startService on port 0 with a SQLite
 * file and OG_CACHE_DIR in a temp directory, stopped and started again on the same directories.
 * After a restart a repeated request is served from disk (no render, same bytes and ETag); a
 * file truncated while the service was down is re-rendered and replaced, never served; the byte
 * bound evicts the least recently used image.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/logger.ts";
import { HEADER_BYTES } from "../../src/render/caches/disk-cache.ts";
import { startService, type RunningService } from "../../src/serve.ts";
import { decodeJpeg } from "../support/decode.ts";
import { decodePng } from "../support/png.ts";
import { ADMIN_TOKEN } from "../support/harness.ts";

let dir: string;
let cacheDir: string;
let key: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-disk-cache-e2e-"));
  cacheDir = join(dir, "render-cache");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(env: Record<string, string> = {}): Promise<RunningService> {
  const config = loadConfig({
    OG_DB_PATH: join(dir, "ogsmith.db"),
    OG_CACHE_DIR: cacheDir,
    PORT: "0",
    HOST: "127.0.0.1",
    OG_ADMIN_TOKEN: ADMIN_TOKEN,
    OG_BOOTSTRAP: "false",
    OG_LOG_LEVEL: "silent",
    OG_RENDER_WORKERS: "1",
    ...env,
  });
  return startService(config, { logger: silentLogger, print: () => {}, renderer: { pool: { warmUp: false } } });
}

const generate = (service: RunningService, body: Record<string, unknown>) =>
  fetch(`${service.url}/api/generate`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(body) });

const cacheFiles = () =>
  readdirSync(cacheDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(cacheDir, d.name)).map((name) => join(cacheDir, d.name, name)));

const CARD = { title: "Survives a restart", format: "jpeg", quality: 80 };

describe("persistent render cache across restarts", () => {
  let firstBytes: Uint8Array<ArrayBuffer>;
  let firstEtag: string;

  test("first run renders and writes one verified file named by the content address", async () => {
    const service = await start();
    try {
      const res = await fetch(`${service.url}/admin/accounts`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ email: "cache@example.com", plan: "custom", quota: 1000, requests_per_second: 1000 }),
      });
      key = ((await res.json()) as { api_key: string }).api_key;
      const image = await generate(service, CARD);
      expect(image.status).toBe(200);
      firstBytes = new Uint8Array(await image.arrayBuffer());
      firstEtag = image.headers.get("etag")!;
      expect(service.renderer.pool.stats.rendered).toBe(1);
    } finally {
      await service.stop(); // waits for the cache write
    }
    const files = cacheFiles();
    expect(files).toHaveLength(1);
    expect(files[0]!.endsWith(`${firstEtag.replaceAll('"', "")}.img`)).toBe(true);
    expect(statSync(files[0]!).size).toBe(HEADER_BYTES + firstBytes.byteLength);
  });

  test("after a restart the same request is a disk hit: no render, identical bytes and ETag, still counted", async () => {
    const service = await start();
    try {
      const res = await generate(service, CARD);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/jpeg");
      expect(res.headers.get("etag")).toBe(firstEtag);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(firstBytes);
      expect(service.renderer.pool.stats.rendered).toBe(0);
      expect(service.renderer.diskCache!.stats).toMatchObject({ hits: 1, entries: 1 });
      const usage = (await (await fetch(`${service.url}/api/user/usage`, { headers: { "x-api-key": key } })).json()) as { used: number };
      expect(usage.used).toBe(2);
      const metrics = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
      expect(metrics).toContain('ogsmith_render_disk_cache{state="hits"} 1');
      expect(metrics).toContain('ogsmith_render_disk_cache{state="entries"} 1');
    } finally {
      await service.stop();
    }
  });

  test("a file truncated while the service was down is a miss: re-rendered, replaced, never served", async () => {
    const [file] = cacheFiles();
    truncateSync(file!, HEADER_BYTES + 100);
    const service = await start();
    try {
      const res = await generate(service, CARD);
      expect(res.status).toBe(200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes.byteLength).toBeGreaterThan(100);
      expect(decodeJpeg(bytes).width).toBe(1200);
      expect(res.headers.get("etag")).toBe(firstEtag);
      expect(service.renderer.pool.stats.rendered).toBe(1);
      expect(service.renderer.diskCache!.stats.corrupt).toBe(1);
      await service.renderer.diskCache!.flush();
      expect(readFileSync(file!).byteLength).toBe(HEADER_BYTES + bytes.byteLength);
    } finally {
      await service.stop();
    }
  });

  test("OG_CACHE_MAX_BYTES bounds the directory, evicting the least recently used image", async () => {
    rmSync(cacheDir, { recursive: true, force: true });
    // Room for two PNG cards of this kind (≈28 KB each) but not three.
    const service = await start({ OG_CACHE_MAX_BYTES: String(75_000) });
    try {
      const etags: string[] = [];
      for (const title of ["LRU one", "LRU two"]) {
        const res = await generate(service, { title, width: 800, height: 420 });
        expect(decodePng(new Uint8Array(await res.arrayBuffer())).width).toBe(800);
        etags.push(res.headers.get("etag")!.replaceAll('"', ""));
        await service.renderer.diskCache!.flush();
      }
      const total = cacheFiles().reduce((sum, f) => sum + statSync(f).size, 0);
      // Only test the bound if two fit and a third surely would not.
      expect(total).toBeLessThanOrEqual(75_000);
      expect(total / 2).toBeGreaterThan(75_000 / 3);
      // "LRU one" is used again (a memory hit also counts as use), so "LRU two" is the oldest.
      await (await generate(service, { title: "LRU one", width: 800, height: 420 })).arrayBuffer();
      const third = await generate(service, { title: "LRU three", width: 800, height: 420 });
      etags.push(third.headers.get("etag")!.replaceAll('"', ""));
      await third.arrayBuffer();
      await service.renderer.diskCache!.flush();
      const names = cacheFiles().map((f) => f.slice(f.lastIndexOf("/") + 1));
      expect(names.sort()).toEqual([`${etags[0]}.img`, `${etags[2]}.img`].sort());
      expect(service.renderer.diskCache!.stats.evicted).toBe(1);
      expect(existsSync(join(cacheDir, etags[1]!.slice(0, 2), `${etags[1]}.img`))).toBe(false);
    } finally {
      await service.stop();
    }
  });
});

describe("configuration", () => {
  test("the cache defaults to cache/ beside the database; OG_CACHE_MAX_BYTES=0 or a :memory: database turns it off", () => {
    expect(loadConfig({}).cacheDir).toBe(join("data", "cache"));
    expect(loadConfig({}).cacheMaxBytes).toBe(1024 * 1024 * 1024);
    expect(loadConfig({ OG_DB_PATH: "/var/lib/ogsmith/og.db" }).cacheDir).toBe("/var/lib/ogsmith/cache");
    expect(loadConfig({ OG_CACHE_DIR: "/srv/cache" }).cacheDir).toBe("/srv/cache");
    expect(loadConfig({ OG_CACHE_MAX_BYTES: "0" }).cacheDir).toBeUndefined();
    expect(loadConfig({ OG_DB_PATH: ":memory:" }).cacheDir).toBeUndefined();
    expect(loadConfig({ OG_DB_PATH: ":memory:", OG_CACHE_DIR: "/tmp/x" }).cacheDir).toBe("/tmp/x");
    expect(() => loadConfig({ OG_CACHE_MAX_BYTES: "1GB" })).toThrow(/OG_CACHE_MAX_BYTES/);
  });

  test("an OG_CACHE_DIR that cannot be a directory stops start-up with a line naming it", async () => {
    const file = join(dir, "a-file");
    await Bun.write(file, "not a directory");
    const config = loadConfig({
      OG_DB_PATH: ":memory:",
      OG_CACHE_DIR: join(file, "cache"),
      PORT: "0",
      HOST: "127.0.0.1",
      OG_BOOTSTRAP: "false",
      OG_LOG_LEVEL: "silent",
      OG_RENDER_WORKERS: "1",
    });
    await expect(startService(config, { logger: silentLogger, print: () => {}, renderer: { pool: { warmUp: false } } })).rejects.toThrow(
      /OG_CACHE_DIR is not a writable directory/,
    );
  });
});

describe("missing glyphs across a restart", () => {
  test("a disk hit after a restart answers the X-Missing-Glyphs the render did", async () => {
    const glyphCache = { OG_CACHE_DIR: join(dir, "glyph-cache") };
    const card = { title: "Runes ᚠᚢᚦ" };
    const first = await start(glyphCache);
    try {
      const res = await generate(first, card);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-missing-glyphs")).toBe("3");
      await res.arrayBuffer();
    } finally {
      await first.stop();
    }
    const second = await start(glyphCache);
    try {
      const res = await generate(second, card);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(second.renderer.pool.stats.rendered).toBe(0);
      expect(second.renderer.diskCache!.stats.hits).toBe(1);
      expect(res.headers.get("x-missing-glyphs")).toBe("3");
      // The in-memory cache the disk hit filled knows them too.
      const again = await generate(second, card);
      expect(again.headers.get("x-missing-glyphs")).toBe("3");
      await again.arrayBuffer();
    } finally {
      await second.stop();
    }
  });
});
