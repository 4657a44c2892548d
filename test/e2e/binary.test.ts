import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileBinary, defaultTarget } from "../../scripts/build.ts";
import { decodeJpeg, decodeWebp } from "../support/decode.ts";
import { fractionNear } from "../support/png.ts";
import { REPO_ROOT, waitForOutput } from "../support/process.ts";
import { VERSION } from "../../src/version.ts";

let buildDir: string;
let binary: string;

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), "ogsmith-build-"));
  binary = join(buildDir, "ogsmith");
  // As `bun run build` does (its native-module plugin included), less the bytecode.
  await compileBinary({ target: defaultTarget(), outfile: binary, bytecode: false });
});
afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

test("the compiled binary starts in an empty directory, prints a working key, serves an image, and stops on SIGTERM", async () => {
  const runDir = mkdtempSync(join(tmpdir(), "ogsmith-run-"));
  try {
    copyFileSync(binary, join(runDir, "ogsmith"));
    // No node_modules, no Bun on the path the binary could lean on: only the file itself.
    const proc = Bun.spawn([join(runDir, "ogsmith"), "serve", "--port", "0", "--host", "127.0.0.1"], {
      cwd: runDir,
      env: { PATH: "/usr/bin:/bin", HOME: runDir },
      stdout: "pipe",
      stderr: "pipe",
    });
    const { match } = await waitForOutput(proc.stdout, /"url":"(http:\/\/[^"]+)"/);
    // The first-start banner is plain text on stderr, apart from the JSON log.
    const key = (await waitForOutput(proc.stderr, /API key: (og_[A-Za-z0-9]{32})/)).match[1];
    expect(key).toBeDefined();
    const res = await fetch(`${match[1]}/api/generate`, {
      method: "POST",
      headers: { "x-api-key": key!, "content-type": "application/json" },
      body: JSON.stringify({ title: "From the binary", theme: "light" }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    const png = new Uint8Array(await res.arrayBuffer());
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

    // The dashboard's page, its stylesheet and every ES module it imports come from the binary.
    const base = match[1]!;
    const html = await (await fetch(`${base}/dashboard`)).text();
    const queue = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    const seen = new Set<string>();
    while (queue.length) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const asset = await fetch(base + path);
      expect({ path, status: asset.status }).toEqual({ path, status: 200 });
      const text = await asset.text();
      // Static imports and dynamic ones (the template editor loads its code pane on demand).
      for (const m of text.matchAll(/(?:from |import\()"\.\/([^"]+)"/g)) queue.push(new URL(m[1]!, base + path).pathname + new URL(m[1]!, base + path).search);
    }
    expect([...seen].filter((p) => p.includes(".js")).length).toBeGreaterThanOrEqual(5);
    expect([...seen].some((p) => p.startsWith("/dashboard/assets/code-editor.js?"))).toBe(true);
    for (const path of ["/docs", "/docs/scalar.js", "/openapi.json"])
      expect({ path, status: (await fetch(base + path)).status }).toEqual({ path, status: 200 });

    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    // The database was created where OG_DB_PATH's default points, relative to the working
    // directory, and a stopped server leaves it as one file: every connection closed cleanly, so
    // SQLite checkpointed the log into it and removed the -wal and -shm files.
    // Beside it, the first key in an owner-only file.
    expect(readdirSync(join(runDir, "data")).sort()).toEqual(["cache", "ogsmith-initial-api-key", "ogsmith.db"]);
    expect(readFileSync(join(runDir, "data", "ogsmith-initial-api-key"), "utf8")).toBe(`${key}\n`);
    expect(statSync(join(runDir, "data", "ogsmith-initial-api-key")).mode & 0o777).toBe(0o600);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
}, 60_000);

test("the compiled binary encodes JPEG and WebP in its render workers, caches them under data/cache, and signs URLs offline", async () => {
  const runDir = mkdtempSync(join(tmpdir(), "ogsmith-run-"));
  try {
    copyFileSync(binary, join(runDir, "ogsmith"));
    const adminToken = "binary-test-admin-token-0123";
    // A retired setting left in an old environment: one warning line, and the server starts anyway.
    const env = { PATH: "/usr/bin:/bin", HOME: runDir, OG_ADMIN_TOKEN: adminToken, OG_HTTP_THREADS: "2" };
    const proc = Bun.spawn([join(runDir, "ogsmith"), "serve", "--port", "0", "--host", "127.0.0.1"], { cwd: runDir, env, stdout: "pipe", stderr: "pipe" });
    const { match, text } = await waitForOutput(proc.stdout, /"url":"(http:\/\/[^"]+)"/);
    expect(text.split("\n").filter((line) => line.includes("OG_HTTP_THREADS is gone"))).toHaveLength(1);
    // The bootstrap key is on the free plan (1 request/s): two quick renders would meet its rate
    // limit, so this test uses a starter account made through the admin API.
    const created = await fetch(`${match[1]}/admin/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "binary@example.com", plan: "starter" }),
    });
    expect(created.status).toBe(201);
    const key = ((await created.json()) as { api_key: string }).api_key;
    const generate = (body: object) =>
      fetch(`${match[1]}/api/generate`, { method: "POST", headers: { "x-api-key": key!, "content-type": "application/json" }, body: JSON.stringify(body) });
    const jpeg = await generate({ title: "JPEG from the binary", format: "jpeg" });
    expect(jpeg.headers.get("content-type")).toBe("image/jpeg");
    const jpegImage = decodeJpeg(new Uint8Array(await jpeg.arrayBuffer()));
    expect([jpegImage.width, jpegImage.height]).toEqual([1200, 630]);
    expect(fractionNear(jpegImage, 1150, 590, 40, 30, [0x0b, 0x0b, 0x14], 8)).toBeGreaterThan(0.95);
    const webp = await generate({ title: "WebP from the binary", format: "webp", quality: 70, theme: "light" });
    expect(webp.headers.get("content-type")).toBe("image/webp");
    const webpImage = await decodeWebp(new Uint8Array(await webp.arrayBuffer()));
    expect(fractionNear(webpImage, 1150, 590, 40, 30, [0xfc, 0xfc, 0xfa], 8)).toBeGreaterThan(0.95);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    // Both images were written to the persistent cache's default directory on the way out.
    const cached = new Bun.Glob("*/*.img").scanSync({ cwd: join(runDir, "data", "cache") });
    expect([...cached]).toHaveLength(2);

    const signer = Bun.spawn(
      [join(runDir, "ogsmith"), "sign", "--key-id", "sk_abcdefghij0123456789", "--json", '{"title":"Signed"}', "--base-url", "https://og.example.com"],
      {
        cwd: runDir,
        env: { ...env, OG_SIGNING_SECRET: `ogsk_${"A".repeat(43)}` },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [url, code] = await Promise.all([new Response(signer.stdout).text(), signer.exited]);
    expect(code).toBe(0);
    expect(url.trim()).toMatch(/^https:\/\/og\.example\.com\/i\/sk_abcdefghij0123456789\/[A-Za-z0-9_-]{43}\/event\.png\?title=Signed$/);

    // It names the platform it was built for, and both engines' native modules load.
    const version = Bun.spawn([join(runDir, "ogsmith"), "--version"], { cwd: runDir, env, stdout: "pipe", stderr: "pipe" });
    const [versionLine, versionCode] = await Promise.all([new Response(version.stdout).text(), version.exited]);
    expect(versionCode).toBe(0);
    expect(versionLine.trim()).toBe(`ogsmith ${VERSION} (${defaultTarget()}; engines: satori+resvg, takumi)`);

    // The third-party notices travel inside the binary.
    const licenses = Bun.spawn([join(runDir, "ogsmith"), "--licenses"], { cwd: runDir, env, stdout: "pipe", stderr: "pipe" });
    const [notices, licensesCode] = await Promise.all([new Response(licenses.stdout).text(), licenses.exited]);
    expect(licensesCode).toBe(0);
    expect(notices).toBe(readFileSync(join(REPO_ROOT, "THIRD_PARTY_NOTICES.md"), "utf8"));
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
}, 60_000);
