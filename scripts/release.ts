/**
 * `bun run release`: every target's binary (src/platform.ts) in dist/release, named
 * `ogsmith-<version>-<target>` (`.exe` for Windows), and a SHA256SUMS file beside them in the
 * format `sha256sum -c` reads. Each binary embeds its own target's native modules
 * (scripts/native.ts); none has source maps.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TARGETS, type Target } from "../src/platform.ts";
import { VERSION } from "../src/version.ts";
import { compileBinary, exeName } from "./build.ts";

export const RELEASE_DIR = join("dist", "release");

export function releaseFileName(target: Target): string {
  return exeName(target, `ogsmith-${VERSION}-${target}`);
}

if (import.meta.main) {
  rmSync(RELEASE_DIR, { recursive: true, force: true });
  mkdirSync(RELEASE_DIR, { recursive: true });
  const sums: string[] = [];
  for (const target of Object.keys(TARGETS) as Target[]) {
    const name = releaseFileName(target);
    const started = performance.now();
    try {
      await compileBinary({ target, outfile: `./${join(RELEASE_DIR, name)}` });
    } catch (error) {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    }
    const hash = new Bun.CryptoHasher("sha256").update(await Bun.file(join(RELEASE_DIR, name)).arrayBuffer()).digest("hex");
    sums.push(`${hash}  ${name}`);
    console.log(`built ${join(RELEASE_DIR, name)} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  writeFileSync(join(RELEASE_DIR, "SHA256SUMS"), `${sums.sort((a, b) => a.slice(66).localeCompare(b.slice(66))).join("\n")}\n`);
  console.log(`wrote ${join(RELEASE_DIR, "SHA256SUMS")}`);
}
