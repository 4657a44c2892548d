/**
 * Colour emoji for satori: Twemoji 15 SVGs (graphics CC-BY 4.0, see assets/emoji/LICENSE.txt),
 * packed into one gzip asset by scripts/pack-emoji.ts and embedded in the binary with
 * `with { type: "file" }`. satori asks for an image per emoji through `loadAdditionalAsset`
 * ("emoji", segment) and draws the returned data: URI inline with the text; nothing touches the
 * network at render time.
 *
 * The pack is unpacked on the first emoji a process (or worker) meets, not at start-up: most
 * cards have none, and the unpacked SVGs are ~8 MB.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "bun";
import packPath from "../../../assets/emoji/twemoji.bin.gz" with { type: "file" };

interface EmojiPack {
  index: Record<string, [number, number]>;
  bytes: Uint8Array;
}

let pack: EmojiPack | undefined;
/** data: URIs already built, by key; bounded by the pack's ~3,700 entries. */
const uris = new Map<string, string | null>();

function openPack(): EmojiPack {
  if (pack) return pack;
  const bytes = gunzipSync(readFileSync(packPath));
  const indexLength = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  const index = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + indexLength)));
  pack = { index, bytes: bytes.subarray(4 + indexLength) };
  return pack;
}

/**
 * The pack's key for an emoji: code points in lowercase hex joined by "-", without U+FE0F
 * (text may or may not carry the emoji-presentation selector; the pack never does).
 */
export function emojiKey(segment: string): string {
  const points: string[] = [];
  for (const ch of segment) {
    const cp = ch.codePointAt(0)!;
    if (cp !== 0xfe0f) points.push(cp.toString(16));
  }
  return points.join("-");
}

function svgFor(key: string): Uint8Array | undefined {
  const { index, bytes } = openPack();
  const entry = index[key];
  return entry ? bytes.subarray(entry[0], entry[0] + entry[1]) : undefined;
}

/**
 * The image for one emoji as an SVG data: URI, or undefined when the set has none. A ZWJ
 * sequence newer than the set falls back to its first emoji (🧑‍🩰 → 🧑) rather than nothing.
 */
export function emojiDataUri(segment: string): string | undefined {
  const key = emojiKey(segment);
  if (!key) return undefined;
  const cached = uris.get(key);
  if (cached !== undefined) return cached ?? undefined;
  let svg = svgFor(key);
  if (!svg && key.includes("-200d-")) svg = svgFor(key.slice(0, key.indexOf("-200d-")));
  const uri = svg ? `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}` : null;
  uris.set(key, uri);
  return uri ?? undefined;
}

/**
 * The emoji half of satori's `loadAdditionalAsset` hook (../engines/satori.ts answers text segments from
 * the bundled fallback fonts of fonts.ts); nothing is ever fetched.
 */
export async function loadAdditionalAsset(code: string, segment: string): Promise<string | never[]> {
  return (code === "emoji" && emojiDataUri(segment)) || [];
}
