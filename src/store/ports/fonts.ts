/**
 * Account fonts: the font files an account uploads for its templates, reached as `store.fonts`.
 * Two adapters, shaped alike: `../sqlite/fonts.ts` and `../postgres/fonts.ts`.
 *
 * The file itself is kept in the store (every instance reads the same bytes) beside what the
 * serving process read from it when it was uploaded (family, weight, style, format, glyph count).
 * A face is one (family, weight, style) of an account: storing a face the account already has
 * replaces it. Every method is scoped to one account, except `data`, which reads bytes by their
 * digest (the render path names fonts by digest once it has checked whose they are). The rules of
 * the Store (../types.ts) hold: each method is atomic, operational faults are thrown as
 * StoreUnavailableError, times are epoch ms, records are plain objects.
 */

/** One stored font, without its bytes. */
export interface FontRecord {
  /** `font_` + 20 alphanumerics. */
  id: string;
  accountId: string;
  /** The family name templates use (as given or read from the font's name table). */
  family: string;
  /** 100–900. */
  weight: number;
  style: "normal" | "italic";
  format: "ttf" | "otf" | "woff" | "woff2";
  /** Size of the file. */
  bytes: number;
  /** Glyphs in the font. */
  glyphs: number;
  /** Has variation axes (fvar). */
  variable: boolean;
  /** Lowercase hex SHA-256 of the file. */
  digest: string;
  createdAt: number;
}

export interface NewFont extends Omit<FontRecord, "createdAt"> {
  data: Uint8Array;
  now: number;
}

/** What `put` checks in its transaction. */
export interface FontLimits {
  /** Fonts per account (a face replaced does not count twice). */
  maxFonts: number;
  /** Bytes of font files per account. */
  maxBytes: number;
}

export interface FontStore {
  /**
   * Stores the font, replacing the account's font of the same family (case-insensitive), weight
   * and style if it has one (`replaced`), unless the account would then hold more than the
   * limits allow ("too_many", "too_large"), checked in the same transaction.
   */
  put(font: NewFont, limits: FontLimits): Promise<{ font: FontRecord; replaced?: FontRecord } | "too_many" | "too_large">;
  /** The account's fonts, by family then weight then style. */
  list(accountId: string): Promise<FontRecord[]>;
  /** Deletes one of the account's fonts; false when the account has none with this id. */
  delete(accountId: string, id: string): Promise<boolean>;
  /** The bytes of a stored file by its digest (any account's: the caller has checked whose), or undefined. */
  data(digest: string): Promise<Uint8Array | undefined>;
}
