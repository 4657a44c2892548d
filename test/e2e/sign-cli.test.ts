/**
 * `ogsmith sign` and `ogsmith render` with a format, as child processes (`bun src/main.ts …`):
 * no server, no database. The printed URL is checked against the signing library and by
 * taking it apart as a server would.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { paramsFromSearch, sign, verify } from "../../src/signing/index.ts";
import { decodeJpeg, decodeWebp } from "../support/decode.ts";
import { REPO_ROOT, runCli } from "../support/process.ts";

const KEY_ID = "sk_abcdefghij0123456789";
const SECRET = "ogsk_0123456789abcdefghijABCDEFGHIJ_-0123456789a";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-sign-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const signCli = (body: unknown, ...flags: string[]) => runCli(["sign", "--key-id", KEY_ID, "--secret", SECRET, "--json", JSON.stringify(body), ...flags]);

describe("ogsmith sign", () => {
  test("prints exactly the URL the library builds: base URL, key id, signature, template.ext, canonical query", async () => {
    const { code, stdout, stderr } = await signCli(
      { template: "blog", title: "Hello, world & friends", author_name: "Ada", width: 600 },
      "--base-url",
      "https://og.example.com/",
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const params = { title: "Hello, world & friends", author_name: "Ada", width: "600" };
    const signature = sign(SECRET, "blog", "png", params);
    expect(stdout.trim()).toBe(`https://og.example.com/i/${KEY_ID}/${signature}/blog.png?author_name=Ada&title=Hello%2C%20world%20%26%20friends&width=600`);
  });

  test("--format overrides the body's; --expires-in adds exp; the base URL defaults to OG_BASE_URL", async () => {
    const before = Math.floor(Date.now() / 1000);
    const { code, stdout } = await runCli(
      [
        "sign",
        "--key-id",
        KEY_ID,
        "--secret",
        SECRET,
        "--json",
        JSON.stringify({ title: "Launch", format: "png", quality: 70 }),
        "--format",
        "webp",
        "--expires-in",
        "7d",
      ],
      { OG_BASE_URL: "https://images.example.org/og" },
    );
    const after = Math.floor(Date.now() / 1000);
    expect(code).toBe(0);
    const url = new URL(stdout.trim());
    expect(url.origin + url.pathname.split("/i/")[0]).toBe("https://images.example.org/og");
    const [keyId, signature, file] = url.pathname.split("/i/")[1]!.split("/");
    expect(keyId).toBe(KEY_ID);
    expect(file).toBe("event.webp");
    const exp = Number(url.searchParams.get("exp"));
    expect(exp).toBeGreaterThanOrEqual(before + 7 * 86_400);
    expect(exp).toBeLessThanOrEqual(after + 7 * 86_400);
    expect(verify(SECRET, "event", "webp", paramsFromSearch(url.search)!, signature!)).toBe(true);
    expect(url.searchParams.get("format")).toBeNull();
  });

  test("jpeg in the body becomes .jpg", async () => {
    const { code, stdout } = await signCli({ title: "J", format: "jpeg" });
    expect(code).toBe(0);
    expect(stdout).toContain("/event.jpg?title=J");
  });

  test("the secret comes from OG_SIGNING_SECRET, a file or standard input, and gives the same URL as --secret", async () => {
    const body = JSON.stringify({ title: "From elsewhere" });
    const expected = (await signCli({ title: "From elsewhere" })).stdout;
    expect(expected).toContain("/i/sk_");
    const fromEnv = await runCli(["sign", "--key-id", KEY_ID, "--json", body], { OG_SIGNING_SECRET: SECRET });
    expect(fromEnv).toEqual({ code: 0, stdout: expected, stderr: "" });
    const file = join(dir, "secret");
    await Bun.write(file, `${SECRET}\n`);
    // The file wins over the environment; a trailing newline (echo, a mounted secret) is no part of it.
    const fromFile = await runCli(["sign", "--key-id", KEY_ID, "--secret-file", file, "--json", body], { OG_SIGNING_SECRET: "ogsk_not-this-one" });
    expect(fromFile).toEqual({ code: 0, stdout: expected, stderr: "" });
    const proc = Bun.spawn(["bun", `${REPO_ROOT}/src/main.ts`, "sign", "--key-id", KEY_ID, "--secret-file", "-", "--json", body], {
      stdin: new Blob([SECRET]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: expected, stderr: "" });
  });

  test("`bun run ogsmith sign …` does not echo its command line (bunfig.toml: run.silent)", async () => {
    const proc = Bun.spawn(["bun", "run", "ogsmith", "sign", "--key-id", KEY_ID, "--secret", SECRET, "--json", '{"title":"x"}'], {
      cwd: REPO_ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(0);
    expect(stdout.trim()).toStartWith("http");
    expect(stdout + stderr).not.toContain(SECRET);
  });

  test("no secret, two secrets, an unreadable file or a malformed secret: exit 2, the source named, the secret never shown", async () => {
    const body = JSON.stringify({ title: "x" });
    const file = join(dir, "bad-secret");
    await Bun.write(file, `${SECRET}x\n`);
    for (const [args, env, expected] of [
      [["sign", "--key-id", KEY_ID, "--json", body], {}, "no signing secret: set OG_SIGNING_SECRET, or pass --secret-file PATH (- reads standard input)"],
      [["sign", "--key-id", KEY_ID, "--json", body, "--secret", SECRET, "--secret-file", file], {}, "use --secret-file or --secret, not both"],
      [["sign", "--key-id", KEY_ID, "--json", body, "--secret-file", join(dir, "missing")], {}, `cannot read --secret-file ${join(dir, "missing")}: ENOENT`],
      [
        ["sign", "--key-id", KEY_ID, "--json", body, "--secret-file", file],
        {},
        "the secret from --secret-file must be a signing key secret: ogsk_ followed by 43 base64url characters",
      ],
      [
        ["sign", "--key-id", KEY_ID, "--json", body],
        { OG_SIGNING_SECRET: `${SECRET}x` },
        "the secret from OG_SIGNING_SECRET must be a signing key secret: ogsk_ followed by 43 base64url characters",
      ],
      [
        ["sign", "--key-id", KEY_ID, "--json", body, SECRET],
        { OG_SIGNING_SECRET: SECRET },
        "unexpected argument (one not after a flag): sign takes flags only",
      ],
    ] as const) {
      const res = await runCli([...args], { OG_SIGNING_SECRET: "", ...env });
      expect({ args, code: res.code, stdout: res.stdout }).toEqual({ args, code: 2, stdout: "" });
      expect(res.stderr.split("\n")[0]).toBe(`ogsmith: ${expected}`);
      expect(res.stderr).not.toContain(SECRET);
    }
  });

  test("usage errors exit 2 with an ogsmith: line and never echo the secret", async () => {
    for (const args of [
      ["sign", "--key-id", KEY_ID, "--secret", SECRET],
      ["sign", "--key-id", "sk_short", "--secret", SECRET, "--json", "{}"],
      ["sign", "--key-id", KEY_ID, "--secret", `${SECRET}x`, "--json", '{"title":"x"}'],
      ["sign", "--key-id", KEY_ID, "--secret", SECRET, "--json", "{nope"],
      ["sign", "--key-id", KEY_ID, "--secret", SECRET, "--json", '{"title":"x"}', "--format", "gif"],
      ["sign", "--key-id", KEY_ID, "--secret", SECRET, "--json", '{"title":"x"}', "--expires-in", "soon"],
      ["sign", "--key-id", KEY_ID, "--secret", SECRET, "--json", '{"title":"x"}', "--base-url", "ftp://x"],
      ["sign", "--key-id", KEY_ID, "--secret", SECRET, "--json", '{"title":"x"}', "--bogus"],
    ]) {
      const { code, stdout, stderr } = await runCli(args);
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(stdout).toBe("");
      expect(stderr.startsWith("ogsmith: ")).toBe(true);
      expect(stderr).not.toContain("ogsmith: ogsmith:");
      expect(stderr).not.toContain(SECRET);
    }
  });

  test("a body the server would refuse is exit 1 naming every bad field, and prints no URL", async () => {
    const { code, stdout, stderr } = await signCli({ subtitle: "no title", width: 10, colour: "red" });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain("title: is required");
    expect(stderr).toContain("width:");
    expect(stderr).toContain("colour:");
    const unknown = await signCli({ template: "nope", title: "x" });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("template: must be one of event, blog");
  });
});

describe("ogsmith render with a format", () => {
  test("--json with format jpeg writes a JPEG; a batch names files by format", async () => {
    const out = join(dir, "card.jpg");
    const one = await runCli(["render", "--json", JSON.stringify({ title: "CLI JPEG", format: "jpeg", quality: 80, width: 640, height: 336 }), "-o", out]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("640×336 JPEG");
    expect([decodeJpeg(new Uint8Array(await Bun.file(out).arrayBuffer())).width]).toEqual([640]);

    const batch = join(dir, "batch.json");
    await Bun.write(batch, JSON.stringify([{ title: "Web P", format: "webp" }, { title: "Named", format: "jpeg", filename: "named" }, { title: "Plain" }]));
    const many = await runCli(["render", "--batch", batch, "--out-dir", join(dir, "out")]);
    expect(many.code).toBe(0);
    const webp = await decodeWebp(new Uint8Array(await Bun.file(join(dir, "out", "web-p.webp")).arrayBuffer()));
    expect([webp.width, webp.height]).toEqual([1200, 630]);
    expect(decodeJpeg(new Uint8Array(await Bun.file(join(dir, "out", "named.jpg")).arrayBuffer())).height).toBe(630);
    expect(await Bun.file(join(dir, "out", "plain.png")).exists()).toBe(true);
  });
});
