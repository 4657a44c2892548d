/**
 * `bun run scripts/pack-emoji.ts`: packs the Twemoji SVGs of the pinned @twemoji/svg package
 * into one gzip file, assets/emoji/twemoji.bin.gz, which src/render/fonts/emoji.ts embeds in the
 * binary. One committed asset instead of 3,700 files keeps the repo and the executable small
 * (≈1.5 MB instead of ≈8 MB) and needs no generated source module.
 *
 * Layout before gzip: u32 LE index length, the index as UTF-8 JSON
 * `{ "<codepoints>": [offset, length] }`, then every SVG's bytes back to back. Keys are the
 * code points in lowercase hex joined by "-", with U+FE0F (variation selector 16) removed, so a
 * lookup does not depend on whether the text carried the selector.
 * Re-run after bumping @twemoji/svg.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "bun";

const pkgDir = dirname(Bun.resolveSync("@twemoji/svg/package.json", import.meta.dir));
const version = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).version as string;
const files = readdirSync(pkgDir)
  .filter((f) => f.endsWith(".svg"))
  .sort();

const index: Record<string, [number, number]> = {};
const chunks: Uint8Array[] = [];
let offset = 0;
for (const file of files) {
  const key = file
    .slice(0, -4)
    .split("-")
    .filter((cp) => cp !== "fe0f")
    .join("-");
  if (index[key]) throw new Error(`${file}: duplicate key ${key}`);
  const bytes = readFileSync(join(pkgDir, file));
  index[key] = [offset, bytes.length];
  chunks.push(bytes);
  offset += bytes.length;
}

const indexBytes = new TextEncoder().encode(JSON.stringify(index));
const header = new Uint8Array(4);
new DataView(header.buffer).setUint32(0, indexBytes.length, true);
const packed = Buffer.concat([header, indexBytes, ...chunks]);
const out = join(import.meta.dir, "../assets/emoji/twemoji.bin.gz");
writeFileSync(out, gzipSync(packed, { level: 9 }));
console.log(`packed ${files.length} SVGs from @twemoji/svg ${version}: ${packed.length} bytes → ${out}`);
