/**
 * The fonts a card is drawn with: the list every process gives satori up front (`loadFonts`),
 * the list a card gets of its own (`fontsForCard`), and the faces handed over for a segment no
 * loaded font covers (`fontsForSegment`). The faces come from bundled-fonts.ts (Inter in its
 * subsets, the monospace and serif families), noto-fallback.ts (Chinese, Japanese, Korean,
 * Arabic, Hebrew, Devanagari and Thai, loaded on first use) and, for anything else and
 * replacements for those, the operator's OG_FONTS_DIR (fonts-dir.ts, `useExtraFonts`).
 *
 * Each subset is registered under its own family name. satori picks one face per family name
 * (the closest weight), then falls back to the other families for glyphs the first lacks, so
 * giving the subsets distinct names is what makes "Привет" or "Γειά" find their glyphs while
 * templates only ever ask for `fontFamily: "Inter"`.
 *
 * satori parses every face it is given before the first layout and keeps the parse for the
 * life of the worker, so only Inter's Latin faces are given up front; the other subsets are
 * handed over like the Noto slices, the first time a card has a character only they draw
 * (`fontsForSegment`). A worker that renders only Latin holds 6 parsed faces (four upright, two
 * italic), not 42.
 */
import { LRUCache } from "lru-cache";
import type { Font } from "satori";
import { PRIMARY_FAMILY } from "../../media/font-families.ts";
import { bundledFaces, interCoverage } from "./bundled-fonts.ts";
import { fontCodePoints } from "./cmap.ts";
import { readFontsDir, type ExtraFont, type ExtraFontsReport } from "./fonts-dir.ts";
import { fallbackSlicesFor, type HanPreference } from "./noto-fallback.ts";

let extraFonts: ExtraFont[] = [];
let loaded: Promise<Font[]> | undefined;

/**
 * Registers every .ttf/.otf/.woff/.woff2/.ttc file in `dir` (OG_FONTS_DIR) as a fallback font:
 * satori draws a glyph Inter lacks with the first of these that has it (before the bundled
 * Noto fallbacks, so an operator's font wins). WOFF2 is decoded by satori; a collection
 * contributes its first font. Called once at start-up, before rendering, in every process or
 * worker that renders; files are read here, synchronously, so a bad directory is reported at
 * start-up, not at the first render. Every file is either loaded, loaded with a note (a
 * variable font, a collection), or skipped with the reason. `undefined` clears the extra fonts.
 */
export function useExtraFonts(dir: string | undefined): ExtraFontsReport {
  const { fonts, report } = readFontsDir(dir);
  extraFonts = fonts;
  loaded = undefined;
  sharedPoints = undefined;
  return report;
}

/**
 * The fonts satori gets up front, read once per process (or worker): Inter's Latin faces, then
 * the extra fonts from `useExtraFonts`. With extra fonts, every Inter subset comes first, so
 * Inter keeps drawing the characters both have (a subset handed over later would come after
 * them). satori keeps a font loader (with its shaping cache) per list, found by the array or by
 * the fonts' names and bytes, so callers pass this same array for the loader to be reused
 * (`fontsForCard` says when not to).
 */
export function loadFonts(): Promise<Font[]> {
  loaded ??= bundledFaces(extraFonts.length > 0 ? undefined : PRIMARY_FAMILY).then((bundled): Font[] => [
    ...bundled,
    ...extraFonts.map(({ family, weight, style, data }) => ({ name: family, weight, style, data })),
  ]);
  return loaded;
}

let cardLists = 0;

/** What a card is laid out with: the shared Latin list, or a list of its own (`fontsForCard`). */
export interface CardFonts {
  fonts: Font[];
  /** The list every Latin card shares: no fallback font may be added to its loader. */
  shared: boolean;
}

/**
 * The font list for one card's layout, from the card's text fields. A card whose every
 * character the shared list draws (`sharedCoverage`), or is an emoji, or draws nothing, shares
 * that list, and so one satori font loader and its caches, with every such card. Any other card gets a list of its own:
 * satori keeps what `loadAdditionalAsset` added to a font loader for the loader's life, so in a
 * shared loader a character several fallback fonts have would be drawn with whichever an earlier
 * card happened to load (a Chinese card's slice drawing a Japanese card's 日), and the same card
 * would render differently in a busy worker than in a fresh one. With a loader of its own it
 * renders as in a fresh worker, every time, for 2–5 ms more per render (an empty shaping cache).
 * A template's own text is not known before the layout: the renderer lays a card out again with
 * a list of its own when satori asks the shared list for a fallback font (../engines/satori.ts).
 */
export async function fontsForCard(texts: Iterable<string | undefined>, extra?: ExtraCardFonts): Promise<CardFonts> {
  const shared = extra && extra.fonts.length > 0 ? await listWithExtra(extra) : await loadFonts();
  const covered = await sharedCoverage();
  for (const text of texts) {
    if (!text) continue;
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (!covered.has(cp) && !isIgnorable(cp) && !EMOJI.test(ch)) return { fonts: ownFontList(shared), shared: false };
    }
  }
  return { fonts: shared, shared: true };
}

/**
 * Faces a card names beyond the shared list: the bundled monospace or serif family, an
 * account's own fonts (named for the render, never by the family the account gave them: see
 * account-fonts in the render process). `key` names the set: cards naming the same set share one
 * list, and so one satori font loader, as Latin cards share the shared list.
 */
export interface ExtraCardFonts {
  key: string;
  fonts: Font[];
}

/** Lists of the shared faces and a set of extra ones, by the set's key: the 16 most recently used. */
const extraLists = new LRUCache<string, Promise<Font[]>>({ max: 16 });

function listWithExtra(extra: ExtraCardFonts): Promise<Font[]> {
  let list = extraLists.get(extra.key);
  if (!list) {
    list = loadFonts().then((shared) => [...shared, ...extra.fonts]);
    extraLists.set(extra.key, list);
  }
  return list;
}

let sharedPoints: Promise<Set<number>> | undefined;

/**
 * What the shared list draws without asking for more: Inter's Latin faces, and with
 * OG_FONTS_DIR every Inter subset and the directory's fonts too (all given up front then). A
 * character this misses only costs a card its own loader; one it wrongly counts is caught by the
 * renderer's second layout.
 */
export function sharedCoverage(): Promise<Set<number>> {
  sharedPoints ??= interCoverage().then(({ primary, subsets }) => {
    if (extraFonts.length === 0) return primary;
    const all = new Set(primary);
    for (const subset of subsets) for (const cp of subset.points) all.add(cp);
    for (const font of extraFonts) for (const cp of fontCodePoints(new Uint8Array(font.data)) ?? []) all.add(cp);
    return all;
  });
  return sharedPoints;
}

/**
 * Characters of emoji, which satori draws from the images `loadAdditionalAsset` returns (kept per
 * render, not in the font loader), so a Latin card with emoji keeps the shared list. Should one
 * be drawn as text after all (an emoji Twemoji lacks), the renderer notices and lays the card out
 * again with a list of its own: this only has to be right often, not always.
 */
const EMOJI = /\p{Extended_Pictographic}|[\u{1F1E6}-\u{1F1FF}\u{1F3FB}-\u{1F3FF}\u20E3]/u;

/**
 * A copy of `fonts` that satori gives a font loader of its own. satori finds loaders by the
 * fonts' names and bytes, not by the array, so the list's own entry (Inter's Latin face again,
 * under a name used once) is what makes it new. Parsed faces are still shared: satori caches
 * each parse by the identity of the font's bytes.
 */
export function ownFontList(fonts: Font[]): Font[] {
  return [...fonts, { ...fonts[0]!, name: `Inter card ${++cardLists}` }];
}

/** Characters that draw nothing and are not worth a font (joiners, selectors, bidi marks, spaces). */
export function isIgnorable(cp: number): boolean {
  return (
    cp <= 0x20 ||
    (cp >= 0x7f && cp <= 0xa0) ||
    cp === 0xad ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x2028 && cp <= 0x202f) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff ||
    (cp >= 0xe0000 && cp <= 0xe0fff)
  );
}

/**
 * satori's answer for a segment of text no loaded font covers. A character one of Inter's other
 * subsets has (Latin extended, Cyrillic, Greek, Vietnamese) gets that subset's faces. Any other
 * gets the bundled slices that hold it, preferring the family of the language satori detected,
 * and for Han the card's preference (`hanPreference`: Han in a Japanese title draws with Noto
 * Sans JP, in a Korean one with KR, otherwise with SC; TC where SC lacks a character). Each
 * slice becomes its own family name with its weights (satori picks one face per name, so one
 * name per slice keeps every slice in the fallback chain). The same bytes are returned every
 * time, so each subset and slice is read, and parsed by satori (which caches parses by the
 * bytes), once per worker, on first use. Also returns the code points nothing bundled has.
 */
export async function fontsForSegment(lang: string, segment: string, han?: HanPreference): Promise<{ fonts: Font[]; missing: number[] }> {
  const { primary, subsets } = await interCoverage();
  const interFamilies = new Set<string>();
  const rest: number[] = [];
  for (const ch of segment) {
    const cp = ch.codePointAt(0)!;
    if (isIgnorable(cp) || primary.has(cp)) continue;
    const subset = subsets.find((s) => s.points.has(cp));
    if (subset) interFamilies.add(subset.family);
    else rest.push(cp);
  }
  const inter = await Promise.all([...interFamilies].map((family) => bundledFaces(family)));
  const slices = rest.length > 0 ? await fallbackSlicesFor(lang, rest, han) : { fonts: [], missing: [] };
  return { fonts: [...inter.flat(), ...slices.fonts], missing: slices.missing };
}
