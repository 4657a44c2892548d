/**
 * The native modules a binary embeds, chosen by its target rather than by the machine that
 * builds it.
 *
 * Both engines draw with a N-API addon published as one npm package per platform:
 * `@resvg/resvg-js-<platform>` (satori + resvg) and `@takumi-rs/core-<platform>` (takumi).
 * `bun install` installs the build machine's only, so a cross-compiled binary would embed the
 * wrong one (or none). Here:
 *
 * - `nativeModulesDir(target)`: for the build machine's own target, the project's node_modules;
 *   for any other, a second install of the same package.json and bun.lock under
 *   node_modules/.cache/ogsmith-native, with `--os`, `--cpu` and `--libc` set to every platform
 *   (`*`), so every target's addons are there, at the lockfile's versions and checked against
 *   its integrity hashes (`--frozen-lockfile`). The first run downloads them; later runs take
 *   about a second.
 * - `nativePlugin(target, dir)`: a Bun.build plugin under which every `require` of a platform
 *   package (the resvg-js loader's, and takumi-native.ts's one per target) resolves to the
 *   target's package in `dir`, and every other platform's to a module that throws, so the
 *   binary embeds exactly its target's two addons. It also replaces src/build-target.ts with one
 *   naming the target (`ogsmith --version`).
 */
import type { BunPlugin } from "bun";
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { hostTarget, TARGETS, type Target } from "../src/platform.ts";

export const REPO_ROOT = resolve(import.meta.dir, "..");

/** The per-platform packages: `@resvg/resvg-js-linux-arm64-gnu`, `@takumi-rs/core-darwin-x64/core.darwin-x64.node`. */
const PLATFORM_PACKAGE = /^(@resvg\/resvg-js|@takumi-rs\/core)-([a-z0-9]+(?:-[a-z0-9]+)+)(\/[^/]+)?$/;
export const NATIVE_PACKAGES = ["@resvg/resvg-js", "@takumi-rs/core"] as const;

/** The directory whose node_modules holds `target`'s addons, installed from bun.lock if need be. */
export function nativeModulesDir(target: Target, root = REPO_ROOT): string {
  return target === hostTarget() ? join(root, "node_modules") : allPlatformsModulesDir(root);
}

/** node_modules with every platform's packages, at bun.lock's versions (installed on each call; ≈ 1 s once downloaded). */
export function allPlatformsModulesDir(root = REPO_ROOT): string {
  const dir = join(root, "node_modules", ".cache", "ogsmith-native");
  mkdirSync(dir, { recursive: true });
  for (const file of ["package.json", "bun.lock", "bunfig.toml"]) copyFileSync(join(root, file), join(dir, file));
  rmSync(join(dir, "patches"), { recursive: true, force: true });
  cpSync(join(root, "patches"), join(dir, "patches"), { recursive: true });
  const install = Bun.spawnSync([process.execPath, "install", "--frozen-lockfile", "--production", "--ignore-scripts", "--os=*", "--cpu=*", "--libc=*"], {
    cwd: dir,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (install.exitCode !== 0) {
    throw new Error(`installing every platform's native modules in ${dir} failed:\n${install.stderr.toString()}${install.stdout.toString()}`);
  }
  return join(dir, "node_modules");
}

/** The files of `target`'s addons inside `modulesDir` (for the embedding check). */
export function addonFiles(target: Target, modulesDir: string): string[] {
  return NATIVE_PACKAGES.map((name) => {
    const dir = join(modulesDir, `${name}-${TARGETS[target].addon}`);
    return join(dir, JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).main as string);
  });
}

export function nativePlugin(target: Target, modulesDir: string): BunPlugin {
  const addon = TARGETS[target].addon;
  return {
    name: "ogsmith-native-modules",
    setup(build) {
      build.onResolve({ filter: PLATFORM_PACKAGE }, (args) => {
        const [, name, platform, file] = PLATFORM_PACKAGE.exec(args.path)!;
        if (platform !== addon) return { path: args.path, namespace: "ogsmith-other-platform" };
        const dir = join(modulesDir, `${name}-${platform}`);
        const path = join(dir, file ?? (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).main as string));
        if (!existsSync(path)) throw new Error(`${args.path}: ${path} is missing (the ${target} binary needs it)`);
        return { path };
      });
      build.onLoad({ filter: /.*/, namespace: "ogsmith-other-platform" }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not in this binary, which was built for ${target}`)});`,
        loader: "js",
      }));
      build.onLoad({ filter: /[\\/]src[\\/]build-target\.ts$/ }, () => ({
        contents: `export const BUILD_TARGET = ${JSON.stringify(target)};`,
        loader: "ts",
      }));
    },
  };
}
