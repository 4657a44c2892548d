/**
 * takumi's native module (@takumi-rs/core's Rust renderer, a N-API addon), loaded without the
 * package's own loader. That loader finds the addon through `createRequire(import.meta.url)`,
 * which `bun build --compile` cannot follow, so the binary would start without it. A plain
 * `require` of the platform package's `.node` file is something the compiler sees and embeds,
 * as it does resvg's. Only the platforms we build for are listed; elsewhere (running from
 * source on a laptop) the package's loader is used instead.
 *
 * The package's JavaScript wrapper is skipped too: it only registers fonts and turns the tree
 * into JSON, which takumi.ts does itself.
 */
import type { RenderOptions, RendererOptions, RegisteredFamily, FontDetails } from "@takumi-rs/core";

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

function isMusl(): boolean {
  const report = process.report?.getReport?.() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return !report?.header?.glibcVersionRuntime;
}

export function loadTakumiNative(): TakumiNative {
  if (native) return native;
  if (process.platform === "linux" && process.arch === "x64" && !isMusl()) {
    native = require("@takumi-rs/core-linux-x64-gnu/core.linux-x64-gnu.node") as TakumiNative;
    return native;
  }
  // Elsewhere (running from source on macOS, musl, arm64): the package's own loader, which
  // knows every platform. A computed name keeps the compiler from bundling it into the binary.
  const packageName = ["@takumi-rs", "core"].join("/");
  const wrapper = require(packageName) as { Renderer: new (options?: RendererOptions) => { registerFont(font: FontDetails): Promise<RegisteredFamily[]>; render(node: object, options?: RenderOptions): Promise<Buffer> }; setGlyphCacheMaxBytes(bytes: number): void };
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
