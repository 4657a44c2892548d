/**
 * takumi's native module (@takumi-rs/core's Rust renderer, a N-API addon), loaded without the
 * package's own loader. That loader finds the addon through `createRequire(import.meta.url)`,
 * which `bun build --compile` cannot follow, so the binary would start without it. A plain
 * `require` of the platform package's `.node` file is something the compiler sees and embeds,
 * as it does resvg's. One `require` per release target (src/platform.ts): when the binary is
 * built, scripts/native.ts points the target's at that target's package (fetched for it from
 * the lockfile's version) and every other one at a module that throws, so each binary embeds
 * its own platform's addon and no other. Elsewhere (running from source on a platform with no
 * release binary) the package's loader is used instead.
 *
 * The package's JavaScript wrapper is skipped too: it only registers fonts and turns the tree
 * into JSON, which takumi.ts does itself.
 */
import type { RenderOptions, RendererOptions, RegisteredFamily, FontDetails } from "@takumi-rs/core";
import { BUILD_TARGET } from "../../build-target.ts";
import { hostTarget } from "../../platform.ts";

/** The native renderer's methods we call (the addon's own class, not the package's wrapper). */
export interface NativeRenderer {
  registerFont(font: FontDetails): Promise<RegisteredFamily[]>;
  /** `source` is the node tree as JSON text (parsed off the JS thread) or as an object. */
  render(source: string | object, options?: RenderOptions): Promise<Buffer>;
}

export interface TakumiNative {
  Renderer: new (options?: RendererOptions) => NativeRenderer;
  setGlyphCacheMaxBytes(bytes: number): void;
}

let native: TakumiNative | undefined;

/**
 * The addon of each release target. The names stay literal for the compiler to see them, and
 * inside `try`, so that a plain `Bun.build` (without scripts/native.ts) still compiles, with the
 * build machine's addon only.
 */
function requireAddon(target: string): TakumiNative | undefined {
  try {
    switch (target) {
      case "linux-x64":
        return require("@takumi-rs/core-linux-x64-gnu/core.linux-x64-gnu.node");
      case "linux-arm64":
        return require("@takumi-rs/core-linux-arm64-gnu/core.linux-arm64-gnu.node");
      case "linux-x64-musl":
        return require("@takumi-rs/core-linux-x64-musl/core.linux-x64-musl.node");
      case "linux-arm64-musl":
        return require("@takumi-rs/core-linux-arm64-musl/core.linux-arm64-musl.node");
      case "darwin-x64":
        return require("@takumi-rs/core-darwin-x64/core.darwin-x64.node");
      case "darwin-arm64":
        return require("@takumi-rs/core-darwin-arm64/core.darwin-arm64.node");
      case "windows-x64":
        return require("@takumi-rs/core-win32-x64-msvc/core.win32-x64-msvc.node");
      default:
        return undefined;
    }
  } catch (error) {
    throw new Error(
      `takumi's native module for ${target} is not available to this ${process.platform}-${process.arch} process (ogsmith --version names the platform a binary was built for; docs/operations.md, Release binaries). ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export function loadTakumiNative(): TakumiNative {
  if (native) return native;
  // A compiled binary loads the addon it was built with (its only one); from source, the host's.
  const addon = requireAddon(BUILD_TARGET ?? hostTarget());
  if (addon) {
    native = addon;
    return native;
  }
  // Elsewhere (running from source on a platform with no release binary): the package's own
  // loader, which knows every platform it is published for. A computed name keeps the compiler
  // from bundling it into the binary.
  const packageName = ["@takumi-rs", "core"].join("/");
  const wrapper = require(packageName) as {
    Renderer: new (
      options?: RendererOptions,
    ) => { registerFont(font: FontDetails): Promise<RegisteredFamily[]>; render(node: object, options?: RenderOptions): Promise<Buffer> };
    setGlyphCacheMaxBytes(bytes: number): void;
  };
  class WrappedRenderer implements NativeRenderer {
    private readonly inner;
    constructor(options?: RendererOptions) {
      this.inner = new wrapper.Renderer(options);
    }
    registerFont(font: FontDetails) {
      return this.inner.registerFont(font);
    }
    render(source: string | object, options?: RenderOptions) {
      return this.inner.render(typeof source === "string" ? (JSON.parse(source) as object) : source, options);
    }
  }
  native = { Renderer: WrappedRenderer, setGlyphCacheMaxBytes: wrapper.setGlyphCacheMaxBytes };
  return native;
}
