/**
 * The bundled fallback fonts for scripts Inter lacks (Chinese, Japanese, Korean, Arabic, Hebrew,
 * Devanagari, Thai, symbols): Noto slices packed into assets/fonts/noto-fallback.bin by
 * scripts/pack-fonts.ts and embedded in the binary. The pack's index is read on the first
 * character that needs it and each slice on first use, so a server that only renders Latin
 * never reads them. Which CJK family draws Han is the card's own preference (`hanPreference`).
 */
import type { Font } from "satori";
import type { Weight } from "./bundled-fonts.ts";
import fallbackPackPath from "../../../assets/fonts/noto-fallback.bin" with { type: "file" };

/** Which CJK family draws Han characters (漢字, shared by Chinese, Japanese and Korean) in a card. */
export type HanPreference = "ja-JP" | "ko-KR" | "zh-CN";

/**
 * The Han preference of a card from all its text: kana make it Japanese, Hangul Korean, other
 * Han Chinese; undefined when it has no CJK at all.
 */
export function hanPreference(texts: Iterable<string | undefined>): HanPreference | undefined {
  let han = false;
  let hangul = false;
  for (const text of texts) {
    if (!text) continue;
    if (/[\u3040-\u30FF\u31F0-\u31FF\uFF66-\uFF9F]/.test(text)) return "ja-JP";
    if (/[\u1100-\u11FF\u3130-\u318F\uAC00-\uD7AF]/.test(text)) hangul = true;
    if (/[\u3400-\u9FFF\uF900-\uFAFF\u{20000}-\u{3FFFF}]/u.test(text)) han = true;
  }
  return hangul ? "ko-KR" : han ? "zh-CN" : undefined;
}

/** One slice of assets/fonts/noto-fallback.bin, as scripts/pack-fonts.ts writes it in the index. */
export interface PackSlice {
  family: string;
  /** The satori language codes this family is preferred for (Han is shared by four families). */
  langs: string[];
  weight: number;
  offset: number;
  length: number;
  /** Inclusive code point ranges, from the slice's unicode-range. */
  ranges: [number, number][];
}

interface Pack {
  slices: PackSlice[];
  /** Where slice bytes start in the file. */
  dataStart: number;
  /** Per slice, its face: slices of one family with the same ranges are the weights of one face ("Noto Sans JP#12"). */
  faces: string[];
}

let pack: Promise<Pack> | undefined;
/** Fonts handed to satori, by slice group ("family#n"), so a second ask returns the same objects (satori caches parses by identity). */
const sliceFonts = new Map<string, Promise<Font[]>>();

/**
 * The pack's index, read on the first character Inter and OG_FONTS_DIR lack, never at
 * start-up: a server that only renders Latin never reads it. Only the index is read here;
 * slice bytes are read one slice at a time by `fontsForSegment`.
 */
function openPack(): Promise<Pack> {
  pack ??= (async () => {
    const file = Bun.file(fallbackPackPath);
    const head = new DataView(await file.slice(0, 4).arrayBuffer()).getUint32(0, true);
    const index = JSON.parse(await file.slice(4, 4 + head).text()) as { slices: PackSlice[] };
    const firstOf = new Map<string, number>();
    const faces = index.slices.map((s, i) => {
      const id = `${s.family}|${JSON.stringify(s.ranges)}`;
      if (!firstOf.has(id)) firstOf.set(id, i);
      return `${s.family}#${firstOf.get(id)}`;
    });
    return { slices: index.slices, dataStart: 4 + head, faces };
  })();
  return pack;
}

function covers(slice: PackSlice, cp: number): boolean {
  for (const [a, b] of slice.ranges) if (cp >= a && cp <= b) return true;
  return false;
}

/** The Noto slices for `points` (see `fontsForSegment`), and the points no slice has. */
export async function fallbackSlicesFor(lang: string, points: number[], han?: HanPreference): Promise<{ fonts: Font[]; missing: number[] }> {
  // satori names one language when it can tell ("ja-JP" for kana) and several for Han
  // ("ja-JP|zh-CN|zh-TW|zh-HK"); the card's own preference decides between those.
  const langs = lang.split("|");
  const preferred = han && (langs.length > 1 || langs[0] === "unknown") ? han : langs.length === 1 ? langs[0]! : undefined;
  const { slices, dataStart, faces } = await openPack();
  const groups = new Set<string>();
  const missing: number[] = [];
  for (const cp of points) {
    let best: number | undefined;
    for (let i = 0; i < slices.length; i++) {
      const slice = slices[i]!;
      if (!covers(slice, cp)) continue;
      if (best === undefined) best = i;
      if (preferred && slice.langs.includes(preferred)) {
        best = i;
        break;
      }
    }
    if (best === undefined) missing.push(cp);
    else groups.add(faces[best]!);
  }
  const fonts = await Promise.all(
    [...groups].map((key) => {
      let loading = sliceFonts.get(key);
      if (!loading) {
        const members = slices.filter((_, i) => faces[i] === key);
        loading = Promise.all(
          members.map(async (s) => ({
            name: key,
            weight: s.weight as Weight,
            style: "normal" as const,
            data: await Bun.file(fallbackPackPath)
              .slice(dataStart + s.offset, dataStart + s.offset + s.length)
              .arrayBuffer(),
          })),
        );
        sliceFonts.set(key, loading);
      }
      return loading;
    }),
  );
  return { fonts: fonts.flat(), missing };
}

/** Bundled fallback slices this process has read so far (for tests and diagnostics). */
export function loadedFallbackSlices(): string[] {
  return [...sliceFonts.keys()];
}
