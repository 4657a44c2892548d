/**
 * The newcomer's paper cuts in the documentation and container text a first user copies (the
 * messages that say how to proceed are checked with their routes, test/http/webhooks.test.ts and
 * test/http/usage.test.ts).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../../support/process.ts";
import { isTarget } from "../../../src/platform.ts";

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
