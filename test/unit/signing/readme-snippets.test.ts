/**
 * The signing snippets of docs/signing.md are code people paste: the Node one (run with bun) and the
 * Python one (run with python3) are extracted from docs/signing.md by their markers, run as written,
 * and must print exactly the URL src/signing builds for the same inputs, also for inputs that
 * exercise the encoding (non-ASCII, reserved characters, the characters encodeURIComponent
 * leaves alone). Then the same snippets sign URLs for a real server (port 0) with a real signing
 * key, and the server answers each with an image.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSignedUrl } from "../../../src/signing/index.ts";
import { startTestService, type TestService } from "../../support/harness.ts";

const DOC = readFileSync(new URL("../../../docs/signing.md", import.meta.url), "utf8");
const KEY_ID = "sk_Readme0123456789abc";
const SECRET = "ogsk_s3cr3t-for-the-readme-test_0123456789ABCDEF";
const BASE = "https://og.example.com";
const EXAMPLE = { title: "Bun Meetup Berlin", date: "May 5, 2027", location: "Berlin & online", theme: "dark" };
const TRICKY = {
  title: "Ünïcødé — 日本語 🎉",
  subtitle: "a+b=c&d/e?f#g%h",
  location: " !'()*~-_.",
  theme: "light",
  width: "600",
};

/** The fenced block right after `<!-- signing-snippet:NAME -->`. */
function snippet(name: string): string {
  const marker = `<!-- signing-snippet:${name} -->`;
  const at = DOC.indexOf(marker);
  if (at < 0) throw new Error(`docs/signing.md has no ${marker}`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(DOC.slice(at + marker.length));
  if (!match) throw new Error(`no code block after ${marker}`);
  return match[1]!;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-readme-snippets-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(command: string[], file: string, source: string, key = { id: KEY_ID, secret: SECRET }): Promise<string[]> {
  writeFileSync(join(dir, file), source);
  const proc = Bun.spawn([...command, join(dir, file)], {
    env: { ...process.env, OG_SIGNING_KEY_ID: key.id, OG_SIGNING_SECRET: key.secret, TRICKY: JSON.stringify(TRICKY) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  return stdout.trim().split("\n");
}

const expected = (template: string, ext: "png" | "jpg" | "webp", params: Record<string, string>) =>
  buildSignedUrl({ baseUrl: BASE, keyId: KEY_ID, secret: SECRET, template, ext, params });

describe("docs/signing.md snippets", () => {
  test("Node (node:crypto), run with bun", async () => {
    const source = `${snippet("node")}
console.log(signedImageUrl({ baseUrl: ${JSON.stringify(BASE)}, keyId: process.env.OG_SIGNING_KEY_ID, secret: process.env.OG_SIGNING_SECRET, template: "blog", ext: "webp", params: JSON.parse(process.env.TRICKY) }));
`;
    const [example, tricky] = await run(["bun"], "snippet.mjs", source);
    expect(example).toBe(expected("event", "png", EXAMPLE));
    expect(tricky).toBe(expected("blog", "webp", TRICKY));
  });

  test("Python (hmac), run with python3", async () => {
    const source = `${snippet("python")}
import json
print(signed_image_url(${JSON.stringify(BASE)}, os.environ["OG_SIGNING_KEY_ID"], os.environ["OG_SIGNING_SECRET"], "blog", "webp", json.loads(os.environ["TRICKY"])))
`;
    const [example, tricky] = await run(["python3"], "snippet.py", source);
    expect(example).toBe(expected("event", "png", EXAMPLE));
    expect(tricky).toBe(expected("blog", "webp", TRICKY));
  });
});

describe("docs/signing.md snippets against the server", () => {
  let service: TestService;
  let key: { id: string; secret: string };
  beforeAll(async () => {
    service = await startTestService();
    const { apiKey } = await service.createAccount({ plan: "custom", quota: 100, requests_per_second: 100 });
    const created = await service.api("/api/signing-keys", { method: "POST", key: apiKey });
    expect(created.status).toBe(201);
    key = (await created.json()) as { id: string; secret: string };
  });
  afterAll(() => service?.stop());

  async function expectImages(urls: string[]) {
    for (const url of urls) {
      expect(url.startsWith(`${service.url}/i/${key.id}/`)).toBe(true);
      const res = await fetch(url);
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
      expect(res.headers.get("content-type")).toBe("image/png");
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
  }

  test("the Node snippet's URLs are accepted", async () => {
    const source = `${snippet("node")}
console.log(signedImageUrl({ baseUrl: ${JSON.stringify(service.url)}, keyId: process.env.OG_SIGNING_KEY_ID, secret: process.env.OG_SIGNING_SECRET, template: "event", ext: "png", params: JSON.parse(process.env.TRICKY) }));
`;
    const [, tricky] = await run(["bun"], "server-snippet.mjs", source, key);
    await expectImages([tricky!]);
  });

  test("the Python snippet's URLs are accepted", async () => {
    const source = `${snippet("python")}
import json
print(signed_image_url(${JSON.stringify(service.url)}, os.environ["OG_SIGNING_KEY_ID"], os.environ["OG_SIGNING_SECRET"], "event", "png", json.loads(os.environ["TRICKY"])))
print(signed_image_url(${JSON.stringify(service.url)}, os.environ["OG_SIGNING_KEY_ID"], os.environ["OG_SIGNING_SECRET"], "event", "png", {"title": "Python", "exp": str(int(time.time()) + 3600)}))
`;
    const [, tricky, expiring] = await run(["python3"], "server-snippet.py", `import time\n${source}`, key);
    await expectImages([tricky!, expiring!]);
  });
});
