/**
 * The newcomer's paper cuts that are not CLI exits or dashboard layout: messages that say how to
 * proceed, and the documentation and container text a first user copies.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { startTestService, type TestService } from "../support/harness.ts";
import { REPO_ROOT } from "../support/process.ts";
import { isTarget } from "../../src/platform.ts";

let s: TestService;
let apiKey: string;
beforeAll(async () => {
  s = await startTestService();
  ({ apiKey } = await s.createAccount({ plan: "pro" }));
});
afterAll(() => s.stop());

test("a localhost or private URL is refused with a message that names OG_ALLOW_PRIVATE_NETWORKS", async () => {
  const hook = await s.api("/api/webhooks", { key: apiKey, json: { url: "http://localhost:8080/hook", events: ["usage.reset"], secret: "0123456789abcdef" } });
  expect(hook.status).toBe(400);
  const hookBody = (await hook.json()) as { details: { field: string; message: string }[] };
  expect(hookBody.details).toHaveLength(1);
  expect(hookBody.details[0]!.field).toBe("url");
  expect(hookBody.details[0]!.message).toContain("OG_ALLOW_PRIVATE_NETWORKS=true");

  const image = await s.api("/api/generate", { key: apiKey, json: { title: "x", logo_url: "http://192.168.1.1/logo.png" } });
  expect(image.status).toBe(422);
  const imageBody = (await image.json()) as { details: { field: string; message: string; reason: string }[] };
  expect(imageBody.details[0]).toMatchObject({ field: "logo_url", reason: "blocked_address" });
  expect(imageBody.details[0]!.message).toContain("OG_ALLOW_PRIVATE_NETWORKS=true");

  // The metadata address stays blocked even with the flag: no hint that would not work.
  const metadata = await s.api("/api/webhooks", {
    key: apiKey,
    json: { url: "http://169.254.169.254/latest", events: ["usage.reset"], secret: "0123456789abcdef" },
  });
  expect(metadata.status).toBe(400);
  expect(JSON.stringify(await metadata.json())).not.toContain("OG_ALLOW_PRIVATE_NETWORKS");
});

test("the rate-limit message is grammatical for one request per second", async () => {
  const { apiKey: freeKey } = await s.createAccount({ plan: "free" });
  let limited: Response | undefined;
  for (let i = 0; i < 3 && !limited; i++) {
    const res = await s.api("/api/user/usage", { key: freeKey });
    if (res.status === 429) limited = res;
  }
  expect(limited).toBeDefined();
  expect(((await limited!.json()) as { message: string }).message).toContain("Rate limit exceeded: 1 request per second.");
});

test("README: the curl example fails on an HTTP error instead of writing JSON into card.png", () => {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const curl = readme.match(/curl [^\n]*\/api\/generate[\s\S]*?-o card\.png/)?.[0];
  expect(curl).toBeDefined();
  expect(curl!).toMatch(/ (--fail|--fail-with-body|-f) /);
});

test("Dockerfile: the data volume's directory exists and belongs to the runtime user before VOLUME", () => {
  const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");
  const build = dockerfile.slice(0, dockerfile.indexOf("AS runtime"));
  const runtime = dockerfile.slice(dockerfile.indexOf("AS runtime"));
  const user = runtime.match(/^USER (\S+)/m)?.[1];
  expect(user).toBe("ogsmith");
  // The build stage adds the user to the runtime base's passwd, which the runtime copies.
  const uid = build.match(new RegExp(`'${user}:x:(\\d+):\\1:`))?.[1];
  expect(uid).toBe("10001");
  expect(runtime).toMatch(/^COPY --from=build \/rootfs\/etc\/passwd /m);
  const volume = runtime.match(/^VOLUME \["([^"]+)"\]/m)?.[1];
  expect(volume).toBe("/var/lib/ogsmith/data");
  expect(build).toMatch(new RegExp(`mkdir -p [^\\n]*/rootfs${volume}`));
  expect(build).toMatch(new RegExp(`chown -R ${uid}:${uid} /rootfs/var/lib/ogsmith\\b`));
  // Copied with that owner before VOLUME and before the switch to the runtime user.
  const beforeVolume = runtime.slice(0, runtime.indexOf("\nVOLUME "));
  const copy = beforeVolume.indexOf(`COPY --from=build --chown=${uid}:${uid} /rootfs/var/lib/ogsmith /var/lib/ogsmith`);
  expect(copy).toBeGreaterThan(0);
  expect(copy).toBeLessThan(beforeVolume.indexOf(`USER ${user}`));
  // The database path the image sets lives on that volume.
  expect(runtime).toContain(`OG_DB_PATH=${volume}/`);
});

test("Dockerfile: linux/amd64 and linux/arm64 cross-compiled on the builder's platform; the runtime stage runs nothing", () => {
  const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");
  const build = dockerfile.slice(0, dockerfile.indexOf("AS runtime"));
  const runtime = dockerfile.slice(dockerfile.indexOf("AS runtime"));
  expect(build).toMatch(/^FROM --platform=\$BUILDPLATFORM \S+ AS build$/m);
  expect(build).toMatch(/^ARG TARGETARCH$/m);
  const targets = Object.fromEntries([...build.matchAll(/^ *(\w+)\) target=(\S+) ;;/gm)].map((m) => [m[1]!, m[2]!]));
  expect(targets).toEqual({ amd64: "linux-x64", arm64: "linux-arm64" });
  for (const target of Object.values(targets)) expect(isTarget(target)).toBe(true);
  expect(build).toContain('bun run build --target "$target"');
  // No RUN after the build stage: an arm64 image needs no emulator on an amd64 builder.
  expect(runtime).not.toMatch(/^RUN /m);
  expect(runtime).toMatch(/^HEALTHCHECK /m);
});

test("docs/events.md: the X-OG-Signature snippet verifies a good signature and answers false (not throws) without the header", () => {
  const events = readFileSync(join(REPO_ROOT, "docs", "events.md"), "utf8");
  const snippet = events.slice(events.indexOf("Verify it like this")).match(/```js\n([\s\S]*?)```/)?.[1];
  expect(snippet).toBeDefined();
  const verify = new Function("createHmac", "timingSafeEqual", "secret", "rawBody", "req", `${snippet}\nreturn ok;`);
  const { createHmac, timingSafeEqual } = require("node:crypto");
  const secret = "whsec_c2VjcmV0LWJ5dGVzLTAxMjM0NTY3ODk=";
  const rawBody = '{"id":"evt_1","event":"usage.reset"}';
  const good = "sha256=" + createHmac("sha256", secret).update(rawBody).digest("hex");
  expect(verify(createHmac, timingSafeEqual, secret, rawBody, { headers: { "x-og-signature": good } })).toBe(true);
  expect(verify(createHmac, timingSafeEqual, secret, rawBody, { headers: {} })).toBe(false);
  expect(verify(createHmac, timingSafeEqual, secret, rawBody, { headers: { "x-og-signature": "sha256=short" } })).toBe(false);
  expect(verify(createHmac, timingSafeEqual, secret, rawBody, { headers: { "x-og-signature": good.replace(/.$/, (c) => (c === "0" ? "1" : "0")) } })).toBe(
    false,
  );
});

test("Dockerfile: the build stage copies every path `bun install` reads before it runs (the patched dependencies' patches too)", () => {
  const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");
  const build = dockerfile.slice(0, dockerfile.indexOf("AS runtime"));
  const beforeInstall = build.slice(0, build.indexOf("RUN bun install"));
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { patchedDependencies?: Record<string, string> };
  const patches = Object.values(pkg.patchedDependencies ?? {});
  expect(patches.length).toBeGreaterThan(0);
  for (const patch of patches) {
    const dir = patch.split("/")[0]!;
    expect({ patch, copiedBeforeInstall: new RegExp(`^COPY ${dir} `, "m").test(beforeInstall) }).toEqual({ patch, copiedBeforeInstall: true });
  }
  for (const file of ["package.json", "bun.lock", "bunfig.toml"]) expect(beforeInstall).toContain(file);
});

test("Dockerfile: the build stage copies every file outside src/ that the source imports (migrations, assets, the notices)", () => {
  const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");
  const beforeBuild = dockerfile.slice(0, dockerfile.indexOf('bun run build --target "$target"'));
  const copied = [...beforeBuild.matchAll(/^COPY (?!--)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(" "));
  const outside = new Set<string>();
  for (const path of new Bun.Glob("src/**/*.{ts,tsx}").scanSync(REPO_ROOT)) {
    for (const m of readFileSync(join(REPO_ROOT, path), "utf8").matchAll(/from "((?:\.\.\/)+[^"]+)"/g)) {
      const target = join(dirname(path), m[1]!);
      if (!target.startsWith("src/") && !target.startsWith("node_modules/")) outside.add(target.split("/")[0]!);
    }
  }
  expect([...outside].sort()).toContain("THIRD_PARTY_NOTICES.md");
  expect([...outside].filter((top) => !copied.includes(top))).toEqual([]);
});
