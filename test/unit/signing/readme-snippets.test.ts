/**
 * The README's signing snippets are code people paste: the Node one (run with bun) and the
 * Python one (run with python3) are extracted from README.md by their markers, run as written,
 * and must print exactly the URL src/signing builds for the same inputs, also for inputs that
 * exercise the encoding (non-ASCII, reserved characters, the characters encodeURIComponent
 * leaves alone).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSignedUrl } from "../../../src/signing/index.ts";

const README = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
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
  const at = README.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no ${marker}`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(README.slice(at + marker.length));
  if (!match) throw new Error(`no code block after ${marker}`);
  return match[1]!;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-readme-snippets-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(command: string[], file: string, source: string): Promise<string[]> {
  writeFileSync(join(dir, file), source);
  const proc = Bun.spawn([...command, join(dir, file)], {
    env: { ...process.env, OG_SIGNING_KEY_ID: KEY_ID, OG_SIGNING_SECRET: SECRET, TRICKY: JSON.stringify(TRICKY) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  return stdout.trim().split("\n");
}

const expected = (template: string, ext: "png" | "jpg" | "webp", params: Record<string, string>) =>
  buildSignedUrl({ baseUrl: BASE, keyId: KEY_ID, secret: SECRET, template, ext, params });

describe("README signing snippets", () => {
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
