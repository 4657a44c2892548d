/**
 * `bun run scripts/check-embedded.ts BINARY TARGET`: checks, without running it, that a built
 * binary carries what it needs to draw on its platform: the exact bytes of its target's two
 * native modules (resvg-js and takumi, from the lockfile's packages), none of another
 * platform's, and the wasm codecs and layout engine. CI runs it on the binaries it cannot start
 * (macOS, Windows, musl); a binary built with the build machine's addons instead of its
 * target's fails here.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { isTarget, TARGETS, type Target } from "../src/platform.ts";
import { addonFiles, allPlatformsModulesDir, nativeModulesDir, REPO_ROOT } from "./native.ts";

const CODECS = [
  "satori/layout.wasm",
  "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm",
  "@jsquash/webp/codec/enc/webp_enc_simd.wasm",
  "@jsquash/webp/codec/dec/webp_dec.wasm",
];

export function checkEmbedded(binaryPath: string, target: Target): string[] {
  const binary = readFileSync(binaryPath);
  const problems: string[] = [];
  const has = (file: string) => binary.indexOf(readFileSync(file)) >= 0;
  for (const file of addonFiles(target, nativeModulesDir(target))) if (!has(file)) problems.push(`missing ${target}'s ${basename(file)}`);
  const everyPlatform = allPlatformsModulesDir();
  for (const other of Object.keys(TARGETS) as Target[]) {
    if (other === target) continue;
    for (const file of addonFiles(other, everyPlatform)) if (has(file)) problems.push(`carries ${other}'s ${basename(file)}`);
  }
  for (const codec of CODECS) if (!has(Bun.resolveSync(codec, REPO_ROOT))) problems.push(`missing ${codec}`);
  return problems;
}

if (import.meta.main) {
  const [binaryPath, target] = Bun.argv.slice(2);
  if (!binaryPath || !target || !isTarget(target)) {
    console.error(`usage: bun run scripts/check-embedded.ts BINARY TARGET (${Object.keys(TARGETS).join(", ")})`);
    process.exit(2);
  }
  const problems = checkEmbedded(binaryPath, target);
  for (const problem of problems) console.error(`${binaryPath}: ${problem}`);
  if (problems.length) process.exit(1);
  console.log(
    `${binaryPath}: ${target}'s native modules (${addonFiles(target, nativeModulesDir(target))
      .map((f) => basename(f))
      .join(", ")}) and the wasm codecs are embedded; no other platform's`,
  );
}
