/**
 * The platforms ogsmith ships a binary for (`bun run build --target T`, `bun run release`), and
 * which of them this process is running on. Each target embeds its own native modules: the
 * resvg-js and takumi addons for that operating system, CPU and C library (scripts/native.ts).
 */

/** Target name → Bun's compile target and the suffix of the native packages built for it. */
export const TARGETS = {
  "linux-x64": { bun: "bun-linux-x64", addon: "linux-x64-gnu" },
  "linux-arm64": { bun: "bun-linux-arm64", addon: "linux-arm64-gnu" },
  "linux-x64-musl": { bun: "bun-linux-x64-musl", addon: "linux-x64-musl" },
  "linux-arm64-musl": { bun: "bun-linux-arm64-musl", addon: "linux-arm64-musl" },
  "darwin-x64": { bun: "bun-darwin-x64", addon: "darwin-x64" },
  "darwin-arm64": { bun: "bun-darwin-arm64", addon: "darwin-arm64" },
  "windows-x64": { bun: "bun-windows-x64", addon: "win32-x64-msvc" },
} as const;

export type Target = keyof typeof TARGETS;

export function isTarget(name: string): name is Target {
  return Object.hasOwn(TARGETS, name);
}

/** A Linux process on musl (Alpine): its report names no glibc version. */
export function isMusl(): boolean {
  if (process.platform !== "linux") return false;
  const report = process.report?.getReport?.() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return !report?.header?.glibcVersionRuntime;
}

/**
 * The target this process runs on, by ogsmith's names (`linux-arm64-musl`, `windows-x64`); on a
 * platform with no release binary, the same shape (`freebsd-x64`, `windows-arm64`).
 */
export function hostTarget(): string {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return `${os}-${process.arch}${isMusl() ? "-musl" : ""}`;
}
