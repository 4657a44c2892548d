/**
 * Account fonts (docs/templates.md, "Fonts"): font files an account uploads and names in its
 * templates. Upload, list and delete here, in the serving process; each file is read by a
 * pure-JavaScript font library before it is stored (font-inspect.ts), never by native code.
 *
 * The files live in the store, so every instance has them. A render names the faces it needs by
 * digest (`RenderFonts`); the render process asks the serving process for the bytes it lacks and
 * keeps a bounded cache of them (../sandbox/font-cache.ts), and the serving process keeps its own
 * bounded cache in front of the store (`bytes`). An account's fonts serve that account alone: a
 * render is only ever given the faces of the account that asked.
 */
import { LRUCache } from "lru-cache";
import type { Clock } from "../../clock.ts";
import { ApiError, validationError, type FieldProblem } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { FontRecord, FontStore } from "../../store/types.ts";
import { familyProblems, templateFamilies } from "../../templates/account/fonts.ts";
import type { AccountTemplateSpec } from "../../templates/account/index.ts";
import { inspectFont } from "./font-inspect.ts";
import { BUNDLED_FAMILIES, bundledFamilyOf } from "./fonts.ts";

const MiB = 1024 * 1024;

export const FONT_LIMITS = {
  /** One file. */
  fileBytes: 5 * MiB,
  /** Fonts per account. */
  fonts: 20,
  /** Bytes of font files per account. */
  accountBytes: 20 * MiB,
} as const;

/** A family name as templates write it: letters, digits, spaces, `_` and `-`, 1–64 characters. */
export const FAMILY_NAME = /^[A-Za-z0-9][A-Za-z0-9 _-]{0,63}$/;
export const FONT_STYLES = ["normal", "italic"] as const;
const UPLOAD_FIELDS = ["file", "family", "weight", "style"];

import type { AccountFace, RenderFonts } from "../../media/font-families.ts";

export type { AccountFace, RenderFonts };

/** A font as the API answers it. */
export interface FontView {
  id: string;
  family: string;
  weight: number;
  style: "normal" | "italic";
  format: FontRecord["format"];
  bytes: number;
  glyphs: number;
  variable: boolean;
  created_at: string;
}

export interface BuiltinFontView {
  family: string;
  source: "builtin";
  generic: "sans-serif" | "serif" | "monospace";
  weights: number[];
  styles: ("normal" | "italic")[];
}

/** Bytes of font files the serving process keeps in memory in front of the store. */
const DEFAULT_CACHE_BYTES = 64 * MiB;

export class AccountFontService {
  /** Font files by digest, bounded by their bytes; a file larger than the whole bound is not kept. */
  private readonly cache: LRUCache<string, Uint8Array>;

  constructor(
    private readonly store: FontStore,
    private readonly clock: Clock,
    cacheBytes = DEFAULT_CACHE_BYTES,
  ) {
    this.cache = new LRUCache<string, Uint8Array>({ maxSize: cacheBytes, sizeCalculation: (data) => Math.max(1, data.byteLength) });
  }

  /**
   * Stores an uploaded font (`input`: the multipart form's fields). 400 naming `file` when it is
   * no font or a variable one, `family`, `weight` or `style` when those are wrong; 413 over 5 MiB;
   * 409 past 20 fonts or 20 MiB in the account. A face the account has (same family, weight and
   * style) is replaced.
   */
  async upload(accountId: string, input: Record<string, unknown>): Promise<FontView> {
    const problems: FieldProblem[] = [];
    for (const key of Object.keys(input))
      if (!UPLOAD_FIELDS.includes(key)) problems.push({ field: key, message: `is not an upload field (${UPLOAD_FIELDS.join(", ")})` });
    const file = input.file;
    let data: Uint8Array | undefined;
    if (file instanceof Blob) {
      if (file.size > FONT_LIMITS.fileBytes)
        throw new ApiError("PAYLOAD_TOO_LARGE", `The font file is ${(file.size / MiB).toFixed(1)} MiB; at most ${FONT_LIMITS.fileBytes / MiB} MiB.`, [
          { field: "file", message: `at most ${FONT_LIMITS.fileBytes / MiB} MiB` },
        ]);
      data = new Uint8Array(await file.arrayBuffer());
    } else problems.push({ field: "file", message: "is required: the font file (TTF, OTF, WOFF or WOFF2) as a multipart/form-data file part" });
    const family = optionalText(input.family, "family", problems);
    const weight = optionalWeight(input.weight, problems);
    const style = optionalStyle(input.style, problems);
    if (problems.length) throw validationError(problems);

    let facts: ReturnType<typeof inspectFont>;
    try {
      facts = inspectFont(data!);
    } catch (error) {
      throw validationError([{ field: "file", message: (error as Error).message }]);
    }
    if (facts.variable) {
      throw validationError([
        {
          field: "file",
          message: `is a variable font (axes ${facts.axes.join(", ")}): the satori engine draws a variable font at its default instance only, so it would not draw the weights templates ask for; upload one static file per weight and style instead`,
        },
      ]);
    }
    const named = family ?? cleanFamily(facts.family);
    if (!named)
      throw validationError([
        { field: "family", message: "is required: the font's name table gives no usable family name (letters, digits, spaces, _ and -)" },
      ]);
    if (!FAMILY_NAME.test(named))
      throw validationError([{ field: "family", message: "must be 1 to 64 of letters, digits, spaces, _ and -, starting with a letter or digit" }]);
    if (bundledFamilyOf(named)) throw validationError([{ field: "family", message: `"${named}" is a bundled or generic family; choose another name` }]);

    const digest = new Bun.CryptoHasher("sha256").update(data!).digest("hex");
    const stored = await this.store.put(
      {
        id: newId("font"),
        accountId,
        family: named,
        weight: weight ?? facts.weight,
        style: style ?? facts.style,
        format: facts.format,
        bytes: data!.byteLength,
        glyphs: facts.glyphs,
        variable: false,
        digest,
        data: data!,
        now: this.clock.now(),
      },
      { maxFonts: FONT_LIMITS.fonts, maxBytes: FONT_LIMITS.accountBytes },
    );
    if (stored === "too_many") throw new ApiError("CONFLICT", `An account can have at most ${FONT_LIMITS.fonts} fonts. Delete one first.`);
    if (stored === "too_large") throw new ApiError("CONFLICT", `An account's fonts can take at most ${FONT_LIMITS.accountBytes / MiB} MiB. Delete one first.`);
    this.cache.set(digest, data!);
    return view(stored.font);
  }

  async list(accountId: string): Promise<FontView[]> {
    return (await this.store.list(accountId)).map(view);
  }

  /** The bundled families, as GET /api/fonts lists them beside the account's. */
  builtin(): BuiltinFontView[] {
    return BUNDLED_FAMILIES.map(({ family, generic, weights, styles }) => ({ family, source: "builtin" as const, generic, weights, styles }));
  }

  /** What GET /api/fonts (and the dashboard's list) answers: the account's fonts, then the bundled families. */
  async catalog(accountId: string): Promise<{ data: ((FontView & { source: "account" }) | BuiltinFontView)[] }> {
    return { data: [...(await this.list(accountId)).map((font) => ({ ...font, source: "account" as const })), ...this.builtin()] };
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!/^font_[A-Za-z0-9]{1,40}$/.test(id) || !(await this.store.delete(accountId, id))) throw new ApiError("NOT_FOUND", `No font ${id} in this account.`);
  }

  /** The lowercase family names the account has fonts of. */
  async familyKeys(accountId: string): Promise<Set<string>> {
    return new Set((await this.store.list(accountId)).map((font) => font.family.toLowerCase()));
  }

  /**
   * The fonts a render of `spec` for this account uses. A family the account has no font of is a
   * 400 naming it (a deleted font's templates included), unless `lenient` (a preview): then it is
   * a warning, and the card draws it in Inter. One store read, only when the template names a
   * family that is not bundled.
   */
  async forTemplate(
    accountId: string,
    spec: Pick<AccountTemplateSpec, "html" | "fields" | "themes" | "width" | "height">,
    lenient = false,
  ): Promise<{ fonts?: RenderFonts; warnings: FieldProblem[] }> {
    const families = templateFamilies(spec);
    if (families.uses.length === 0) return { warnings: [] };
    let faces: AccountFace[] = [];
    let has = (_: string) => false;
    if (families.own.length > 0) {
      const fonts = await this.store.list(accountId);
      const keys = new Set(fonts.map((font) => font.family.toLowerCase()));
      has = (name) => keys.has(name);
      const wanted = new Set(families.own);
      faces = fonts.filter((font) => wanted.has(font.family.toLowerCase())).map(({ family, weight, style, digest }) => ({ family, weight, style, digest }));
    }
    const problems = familyProblems(families, has, lenient);
    if (problems.length > 0 && !lenient) throw validationError(problems);
    const fonts = faces.length > 0 || families.bundled.length > 0 ? { faces, bundled: families.bundled } : undefined;
    return { fonts, warnings: problems };
  }

  /** Font files by digest, for render processes: from memory, else from the store. */
  async bytes(digests: string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    for (const digest of digests) {
      let data = this.cache.get(digest);
      if (!data) {
        data = await this.store.data(digest);
        if (data) this.cache.set(digest, data);
      }
      if (data) found.set(digest, data);
    }
    return found;
  }
}

function view(font: FontRecord): FontView {
  return {
    id: font.id,
    family: font.family,
    weight: font.weight,
    style: font.style,
    format: font.format,
    bytes: font.bytes,
    glyphs: font.glyphs,
    variable: font.variable,
    created_at: new Date(font.createdAt).toISOString(),
  };
}

/** A family from a font's name table as templates can write it, or undefined. */
function cleanFamily(name: string | undefined): string | undefined {
  const clean = (name ?? "")
    .replace(/[^A-Za-z0-9 _-]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 64)
    .trim();
  return FAMILY_NAME.test(clean) ? clean : undefined;
}

function optionalText(raw: unknown, field: string, problems: FieldProblem[]): string | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (typeof raw !== "string") {
    problems.push({ field, message: "must be text" });
    return undefined;
  }
  const value = raw.trim().replace(/\s+/g, " ");
  if (!FAMILY_NAME.test(value)) {
    problems.push({ field, message: "must be 1 to 64 of letters, digits, spaces, _ and -, starting with a letter or digit" });
    return undefined;
  }
  return value;
}

function optionalWeight(raw: unknown, problems: FieldProblem[]): number | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  const value = typeof raw === "number" ? raw : typeof raw === "string" && /^\d{3}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isInteger(value) || value < 100 || value > 900 || value % 100 !== 0) {
    problems.push({ field: "weight", message: "must be one of 100, 200, 300, 400, 500, 600, 700, 800, 900" });
    return undefined;
  }
  return value;
}

function optionalStyle(raw: unknown, problems: FieldProblem[]): "normal" | "italic" | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (raw !== "normal" && raw !== "italic") {
    problems.push({ field: "style", message: "must be normal or italic" });
    return undefined;
  }
  return raw;
}

/** The digests a render's fonts name, sorted: part of its content address. */
export function fontDigests(fonts: RenderFonts | undefined): string[] {
  return fonts ? fonts.faces.map((face) => face.digest).sort() : [];
}
