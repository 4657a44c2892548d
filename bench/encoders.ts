/**
 * Encoder benchmark: which JPEG and WebP encoders ogsmith ships, and why.
 *
 *   bun run bench:encoders
 *
 * Renders real cards once (the event card in both themes, the blog card with a photo-like
 * avatar), then encodes the same RGBA pixels with every candidate at quality 85, and prints
 * per card and encoder: the min, median and p95 time of BENCH_RUNS encodes (default 15, after
 * one warm-up that also compiles the wasm; rounds interleave the encoders so a busy machine
 * slows every row alike), the output size, and what the encoder adds to the compiled binary.
 * Our PNG writer is the baseline row (listed first), measured in the same run.
 *
 * Candidates: @jsquash/jpeg (MozJPEG, wasm), jpeg-js (pure JS), @jsquash/webp (libwebp, wasm),
 * and sharp (libvips, native). sharp is not a dependency (its native addon and 18 MB libvips
 * cannot be embedded by `bun build --compile`); set SHARP_PATH to a directory where
 * `bun add sharp` was run to include it.
 */
import { readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import jpegJs from "jpeg-js";
import { encodeImage, encodeWithOptions, JPEG_OPTIONS, WEBP_OPTIONS } from "../src/render/output/encode.ts";
import { renderTemplateToPng } from "../src/render/engines/in-process.ts";
import { flattenPremultiplied } from "../src/render/output/encode.ts";
import { encodePng } from "../src/render/output/png.ts";
import { createTemplateRegistry } from "../src/templates/registry.ts";
import { decodePng } from "../test/support/png.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const QUALITY = 85;
const REPO = new URL("..", import.meta.url).pathname;

/** A 256×256 photo-like PNG (smooth gradients plus noise), for a card where lossy formats matter. */
function photoDataUri(): string {
  const size = 256;
  const rgba = new Uint8Array(size * size * 4);
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 41) - 20;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      rgba[i] = Math.max(0, Math.min(255, 120 + 100 * Math.sin(x / 23) + noise()));
      rgba[i + 1] = Math.max(0, Math.min(255, 90 + 80 * Math.cos(y / 31) + noise()));
      rgba[i + 2] = Math.max(0, Math.min(255, 140 + 60 * Math.sin((x + y) / 40) + noise()));
      rgba[i + 3] = 255;
    }
  }
  return `data:image/png;base64,${Buffer.from(encodePngForBench(rgba, size)).toString("base64")}`;
}
function encodePngForBench(rgba: Uint8Array, size: number): Uint8Array {
  return encodePng(rgba, size, size);
}

interface Card {
  name: string;
  rgba: Uint8Array;
  width: number;
  height: number;
}

async function renderCards(): Promise<Card[]> {
  const templates = createTemplateRegistry();
  const fields = {
    title: "Bun Meetup Berlin: rendering Open Graph images at scale",
    subtitle: "Workers, caches and encoders that earn their keep",
    date: "Thursday, March 14",
    time: "18:30 CET",
    location: "c-base, Berlin",
    speaker_name: "Ada Lovelace",
  };
  const cards: Card[] = [];
  for (const [name, id, theme, extra] of [
    ["event, dark", "event", "dark", {}],
    ["event, light", "event", "light", {}],
    ["blog, dark, photo avatar", "blog", "dark", { author_name: "Ada Lovelace", author_avatar_url: photoDataUri(), category: "Engineering" }],
  ] as const) {
    const template = templates.get(id)!;
    const images = "author_avatar_url" in extra ? { author_avatar_url: extra.author_avatar_url } : {};
    const { png } = await renderTemplateToPng(template, { ...fields, ...extra }, { width: 1200, height: 630, theme, images });
    const decoded = decodePng(png);
    cards.push({ name, rgba: decoded.pixels, width: decoded.width, height: decoded.height });
  }
  return cards;
}

interface Encoder {
  name: string;
  /** What shipping it adds to dist/ogsmith (bytes of wasm + glue), or why it cannot ship. */
  shipped: string;
  encode(card: Card): Promise<Uint8Array>;
}

const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
/** Size of a dependency file; 0 when node_modules is not there (the bench compiled and run elsewhere). */
const fileSize = (...parts: string[]) => {
  try {
    return statSync(join(REPO, "node_modules", ...parts)).size;
  } catch {
    return 0;
  }
};
function dirSize(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    total += entry.isDirectory() ? dirSize(full) : statSync(full).size;
  }
  return total;
}

async function encoders(): Promise<Encoder[]> {
  const list: Encoder[] = [
    { name: "PNG, ours (zlib level 6) — baseline", shipped: "0 (node:zlib)", encode: (c) => encodeImage(c.rgba.slice(), c.width, c.height, "png") },
    {
      name: "JPEG, @jsquash/jpeg (MozJPEG wasm, baseline) — shipped",
      shipped: kib(fileSize("@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm") + fileSize("@jsquash/jpeg/codec/enc/mozjpeg_enc.js")),
      encode: (c) => encodeImage(c.rgba.slice(), c.width, c.height, "jpeg", QUALITY),
    },
    {
      name: "JPEG, @jsquash/jpeg, progressive (Squoosh's default)",
      shipped: "same",
      encode: (c) =>
        encodeWithOptions("jpeg", c.rgba.slice(), c.width, c.height, {
          ...JPEG_OPTIONS,
          progressive: true,
          baseline: false,
          quality: QUALITY,
          chroma_quality: QUALITY,
        }),
    },
    {
      name: "JPEG, jpeg-js (pure JS)",
      shipped: kib(fileSize("jpeg-js/lib/encoder.js")),
      encode: async (c) => new Uint8Array(jpegJs.encode({ data: c.rgba, width: c.width, height: c.height }, QUALITY).data),
    },
    {
      name: "WebP, @jsquash/webp (libwebp wasm SIMD, method 2) — shipped",
      shipped: kib(fileSize("@jsquash/webp/codec/enc/webp_enc_simd.wasm") + fileSize("@jsquash/webp/codec/enc/webp_enc_simd.js")),
      encode: (c) => encodeImage(c.rgba.slice(), c.width, c.height, "webp", QUALITY),
    },
    {
      name: "WebP, @jsquash/webp, method 4 (libwebp's default)",
      shipped: "same",
      encode: (c) => encodeWithOptions("webp", c.rgba.slice(), c.width, c.height, { ...WEBP_OPTIONS, method: 4, quality: QUALITY }),
    },
  ];
  const sharpDir = process.env.SHARP_PATH;
  if (sharpDir) {
    // The package's CommonJS entry by path: a compiled bench does not resolve bare names on disk.
    const sharp = createRequire(join(sharpDir, "package.json"))(join(sharpDir, "node_modules", "sharp", "dist", "index.cjs"));
    const native = kib(dirSize(join(sharpDir, "node_modules", "@img")));
    const raw = (c: Card) => sharp(Buffer.from(c.rgba), { raw: { width: c.width, height: c.height, channels: 4 } });
    list.push(
      {
        name: "JPEG, sharp (libvips, native)",
        shipped: `not embeddable (${native} native)`,
        encode: async (c) => new Uint8Array(await raw(c).jpeg({ quality: QUALITY, mozjpeg: true }).toBuffer()),
      },
      {
        name: "WebP, sharp (libvips, native)",
        shipped: `not embeddable (${native} native)`,
        encode: async (c) => new Uint8Array(await raw(c).webp({ quality: QUALITY }).toBuffer()),
      },
    );
  }
  return list;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function main() {
  const cards = await renderCards();
  const list = await encoders();
  // Card flattening is part of the JPEG path; the cards here are opaque, so it is a no-op pass.
  for (const c of cards) flattenPremultiplied(c.rgba, [255, 255, 255]);
  console.log(`Encoders at quality ${QUALITY}, 1200×630 cards, ${RUNS} runs each after a warm-up (bun ${Bun.version}).`);
  console.log("Runs are interleaved (one of each encoder per round), so load on the machine hits every row alike;");
  console.log("min is the least disturbed run.\n");
  console.log("| card | encoder | min ms | median ms | p95 ms | bytes | vs PNG | adds to binary |");
  console.log("|---|---|---:|---:|---:|---:|---:|---|");
  for (const card of cards) {
    const outputs = await Promise.all(list.map((encoder) => encoder.encode(card)));
    const times: number[][] = list.map(() => []);
    for (let i = 0; i < RUNS; i++) {
      for (const [k, encoder] of list.entries()) {
        const t0 = performance.now();
        await encoder.encode(card);
        times[k]!.push(performance.now() - t0);
      }
    }
    const pngBytes = outputs[0]!.byteLength;
    for (const [k, encoder] of list.entries()) {
      const sorted = times[k]!.sort((a, b) => a - b);
      const bytes = outputs[k]!.byteLength;
      console.log(
        `| ${card.name} | ${encoder.name} | ${sorted[0]!.toFixed(1)} | ${percentile(sorted, 0.5).toFixed(1)} | ${percentile(sorted, 0.95).toFixed(1)} | ${kib(bytes)} | ${((100 * bytes) / pngBytes).toFixed(0)} % | ${encoder.shipped} |`,
      );
    }
  }
}

await main();
