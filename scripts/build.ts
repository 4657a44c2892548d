/**
 * `bun run build`: one self-contained executable at dist/ogsmith, for the machine it is built on.
 * Fonts, templates, migrations, UI assets, the wasm codecs and the third-party notices are
 * imported `with { type: "file" | "text" }`, and the two engines' native modules are required by
 * file, so the compiler embeds them all and the binary runs from any directory with no Bun and
 * no node_modules.
 *
 * `bun run build --target T` builds for another platform (src/platform.ts lists them:
 * linux-x64, linux-arm64, linux-x64-musl, linux-arm64-musl, darwin-x64, darwin-arm64,
 * windows-x64) into dist/ogsmith (dist/ogsmith.exe for Windows), embedding T's native modules
 * rather than the build machine's (scripts/native.ts). `bun run release` builds every target.
 *
 * `bun run build --sourcemap` also writes source maps beside it (dist/*.map, ≈ 10 MB, the
 * source in full) for debugging a minified stack trace; a release leaves them out.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { hostTarget, isTarget, TARGETS, type Target } from "../src/platform.ts";
import { ENTRYPOINTS } from "./entrypoints.ts";
import { nativeModulesDir, nativePlugin, REPO_ROOT } from "./native.ts";

export interface CompileOptions {
  target: Target;
  outfile: string;
  /** Precompiled bytecode (faster start); the release and `bun run build` use it. */
  bytecode?: boolean;
  sourcemap?: boolean;
}

/** Compiles the binary for `target`; throws with the compiler's messages if it fails. */
export async function compileBinary({ target, outfile, bytecode = true, sourcemap = false }: CompileOptions): Promise<void> {
  const modulesDir = nativeModulesDir(target);
  const result = await Bun.build({
    entrypoints: ENTRYPOINTS.map((path) => join(REPO_ROOT, path)),
    root: join(REPO_ROOT, "src"),
    compile: { outfile, target: TARGETS[target].bun },
    minify: true,
    bytecode,
    sourcemap: sourcemap ? "linked" : "none",
    target: "bun",
    plugins: [nativePlugin(target, modulesDir)],
  });
  if (!result.success) throw new AggregateError(result.logs, `building the ${target} binary failed:\n${result.logs.join("\n")}`);
}

/** The build machine's target, if ogsmith ships one for it. */
export function defaultTarget(): Target {
  const host = hostTarget();
  if (!isTarget(host)) throw new Error(`no release target for this machine (${host}); name one with --target (${Object.keys(TARGETS).join(", ")})`);
  return host;
}

export function exeName(target: Target, base: string): string {
  return target.startsWith("windows-") ? `${base}.exe` : base;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: { sourcemap: { type: "boolean", default: false }, target: { type: "string" } },
  });
  if (values.target !== undefined && !isTarget(values.target)) {
    console.error(`unknown --target ${values.target}; one of: ${Object.keys(TARGETS).join(", ")}`);
    process.exit(2);
  }
  const target = values.target ?? defaultTarget();
  const outfile = join("dist", exeName(target, "ogsmith"));
  // Everything an earlier build left (another target's binary, source maps), but not dist/release.
  for (const entry of existsSync("dist") ? readdirSync("dist") : []) if (entry !== "release") rmSync(join("dist", entry), { recursive: true, force: true });
  try {
    await compileBinary({ target, outfile: `./${outfile}`, sourcemap: values.sourcemap });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  console.log(`built ${outfile} for ${target}${values.sourcemap ? " and its source maps (dist/*.map)" : ""}`);
}
