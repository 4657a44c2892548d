/**
 * Decoders for the lossy formats that are independent of the encoders the service uses:
 * JPEG through jpeg-js (pure JavaScript; the service encodes with MozJPEG in wasm) and WebP
 * through libwebp's decoder build (a separate wasm from the encoder's). Both hand back the
 * DecodedPng shape, so the pixel helpers of png.ts work on them.
 */
import decodeWebpWasm, { init as initWebpDecoder } from "@jsquash/webp/decode";
import jpeg from "jpeg-js";
import { decodePng, type DecodedPng } from "./png.ts";

const WEBP_DEC_WASM = new URL("../../node_modules/@jsquash/webp/codec/dec/webp_dec.wasm", import.meta.url);
let webpReady: Promise<void> | undefined;

export function decodeJpeg(bytes: Uint8Array): DecodedPng {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error("not a JPEG");
  const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
  return { width: image.width, height: image.height, pixels: new Uint8Array(image.data) };
}

export async function decodeWebp(bytes: Uint8Array): Promise<DecodedPng> {
  if (Buffer.from(bytes.subarray(0, 4)).toString("latin1") !== "RIFF" || Buffer.from(bytes.subarray(8, 12)).toString("latin1") !== "WEBP")
    throw new Error("not a WebP");
  webpReady ??= (async () => {
    await initWebpDecoder(await WebAssembly.compile(await Bun.file(WEBP_DEC_WASM).arrayBuffer()));
  })();
  await webpReady;
  const image = await decodeWebpWasm(bytes.slice().buffer as ArrayBuffer);
  return { width: image.width, height: image.height, pixels: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength) };
}

/** Decodes whichever of PNG, JPEG or WebP the bytes are. */
export async function decodeAny(bytes: Uint8Array): Promise<DecodedPng> {
  if (bytes[0] === 0x89) return decodePng(bytes);
  if (bytes[0] === 0xff) return decodeJpeg(bytes);
  return decodeWebp(bytes);
}
