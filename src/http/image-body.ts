/**
 * The body of an image response. A Response copies a Uint8Array body on every request (≈4 µs
 * and a fresh 50–100 KiB allocation for a card, which the collector then has to clear) but
 * shares a Blob's. The render cache hands back the same array for every hit, so one Blob per
 * cached image lives as long as that image does, and every later hit sends it without a copy.
 */
const blobs = new WeakMap<Uint8Array, Blob>();

export function imageBody(bytes: Uint8Array): Blob {
  let blob = blobs.get(bytes);
  if (!blob) {
    blob = new Blob([bytes as Uint8Array<ArrayBuffer>]);
    blobs.set(bytes, blob);
  }
  return blob;
}
