/**
 * The account fonts a render process holds: file bytes by digest, bounded by total bytes, the
 * least recently used dropped first. A job names the faces it needs by digest; what this process
 * lacks it asks the serving process for (`fonts_needed`), which reads them from its own cache or
 * the store. The faces are registered under names of their own, never under the family an account
 * gave them: two accounts' "Brand Sans" are different fonts, and a family name must only ever
 * reach the faces of the account whose card is being drawn.
 *
 * Not an LRUCache like the other caches: the faces a job was missing are added together, and only
 * then is the bound restored (`trim`), sparing every face of that job, so a job whose faces alone
 * pass the bound still draws; an eviction on insert could drop a face the job is about to use.
 */
import type { Font } from "satori";
import type { AccountFace, RenderFonts } from "../fonts/account-fonts.ts";
import { extraBundledFaces } from "../fonts/fonts.ts";

export const FONT_CACHE_BYTES = 48 * 1024 * 1024;

/** What a card draws with beyond the shared list (../engines/engine.ts `RenderOptions.cardFonts`). */
export interface CardFontSet {
  /** Names the set: cards with the same set share one font list. */
  key: string;
  fonts: Font[];
  /** The account's families (lowercase) → the name their faces are registered under. */
  names: Record<string, string>;
}

export class FontCache {
  private readonly files = new Map<string, ArrayBuffer>();
  private held = 0;

  constructor(private readonly maxBytes = FONT_CACHE_BYTES) {}

  get bytes(): number {
    return this.held;
  }

  /** The digests of `fonts` this process does not hold. */
  missing(fonts: RenderFonts): string[] {
    return [...new Set(fonts.faces.map((face) => face.digest))].filter((digest) => !this.files.has(digest));
  }

  add(digest: string, data: Uint8Array): void {
    if (this.files.has(digest)) return;
    const copy = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
    this.files.set(digest, copy);
    this.held += copy.byteLength;
  }

  /** Drops the least recently used files until the cache is within its bound (keeping those of `keep`). */
  trim(keep: Set<string>): void {
    for (const [digest, data] of this.files) {
      if (this.held <= this.maxBytes) return;
      if (keep.has(digest)) continue;
      this.files.delete(digest);
      this.held -= data.byteLength;
    }
  }

  /** The card's font set; throws when a face's bytes are not here (the serving process had none). */
  async cardFonts(fonts: RenderFonts): Promise<CardFontSet> {
    const byFamily = new Map<string, AccountFace[]>();
    for (const face of fonts.faces) {
      const key = face.family.toLowerCase();
      byFamily.set(key, [...(byFamily.get(key) ?? []), face]);
    }
    const names: Record<string, string> = {};
    const list: Font[] = [];
    for (const [family, faces] of [...byFamily].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const digests = faces.map((face) => face.digest).sort();
      const name = `account-f${Bun.hash(JSON.stringify([family, digests])).toString(36)}`;
      names[family] = name;
      for (const face of faces) {
        const data = this.files.get(face.digest);
        if (!data) throw new Error(`font ${face.digest.slice(0, 12)} (${face.family}) could not be read`);
        // Most recently used last.
        this.files.delete(face.digest);
        this.files.set(face.digest, data);
        list.push({ name, weight: face.weight as Font["weight"], style: face.style, data });
      }
    }
    const bundled = (await Promise.all(fonts.bundled.map((family) => extraBundledFaces(family)))).flat();
    const key = JSON.stringify([fonts.bundled, Object.values(names)]);
    return { key, fonts: [...bundled, ...list], names };
  }
}
