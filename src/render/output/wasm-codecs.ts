/**
 * The wasm encoders and their Emscripten glue, imported by encode.ts on the first JPEG or WebP
 * so that loading a render worker does not parse them. The wasm files are imported
 * `with { type: "file" }`, which `bun build --compile` embeds in the executable.
 */
import jpegFactory from "@jsquash/jpeg/codec/enc/mozjpeg_enc.js";
import jpegWasmPath from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm" with { type: "file" };
// The SIMD build only: every runtime this binary runs on (Bun's JavaScriptCore) has wasm SIMD,
// and embedding one build instead of two keeps ~280 KB out of the executable.
import webpFactory from "@jsquash/webp/codec/enc/webp_enc_simd.js";
import webpWasmPath from "@jsquash/webp/codec/enc/webp_enc_simd.wasm" with { type: "file" };

export interface WasmEncoder {
  encode(data: Uint8Array, width: number, height: number, options: object): Uint8Array | null;
}

type Factory = (options: Record<string, unknown>) => Promise<WasmEncoder>;

/** Instantiates an Emscripten module from an embedded wasm file (the glue would otherwise fetch it from a URL). */
async function instantiate(path: string, factory: Factory): Promise<WasmEncoder> {
  const module = await WebAssembly.compile(await Bun.file(path).arrayBuffer());
  return factory({
    noInitialRun: true,
    instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance) => void) {
      const instance = new WebAssembly.Instance(module, imports);
      done(instance);
      return instance.exports;
    },
  });
}

export const loadJpegEncoder = () => instantiate(jpegWasmPath as string, jpegFactory as unknown as Factory);
export const loadWebpEncoder = () => instantiate(webpWasmPath as string, webpFactory as unknown as Factory);
