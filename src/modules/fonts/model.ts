/**
 * The font routes' schemas: the upload (multipart/form-data), a stored font, and the list of the
 * account's fonts beside the bundled families. The upload is validated by the core
 * (render/fonts/account-fonts.ts); these schemas document it for OpenAPI and the generated clients.
 */
import { t } from "elysia";
import { Count, mediaBody, OneOf, ResourceId, Timestamp } from "../../http/error-schema.ts";
import { FONT_LIMITS } from "../../render/fonts/account-fonts.ts";

const Family = t.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^[A-Za-z0-9][A-Za-z0-9 _-]{0,63}$",
  description: "The family templates name in `font-family` (letters, digits, spaces, `_` and `-`).",
});
const Weight = t.Integer({ minimum: 100, maximum: 900, multipleOf: 100 });
const Style = OneOf(["normal", "italic"] as const);

export const FontUpload = mediaBody(
  t.Object(
    {
      file: t.File({
        maxLength: FONT_LIMITS.fileBytes,
        description: `The font file: TTF, OTF, WOFF or WOFF2, at most ${FONT_LIMITS.fileBytes / (1024 * 1024)} MiB. Not a variable font.`,
      }),
      family: t.Optional({ ...Family, description: "Default: the family in the font's name table." }),
      weight: t.Optional(t.String({ pattern: "^[1-9]00$", maxLength: 3, description: "100–900 in hundreds. Default: the font's OS/2 weight class." })),
      style: t.Optional(OneOf(["normal", "italic"] as const, { description: "Default: italic when the font says it is." })),
    },
    { title: "FontUpload", additionalProperties: false },
  ),
  ["multipart/form-data"],
);

export const AccountFont = t.Object(
  {
    id: ResourceId("font", "Font id (`font_…`)."),
    family: Family,
    weight: Weight,
    style: Style,
    format: OneOf(["ttf", "otf", "woff", "woff2"] as const),
    bytes: Count(FONT_LIMITS.fileBytes, "Size of the file."),
    glyphs: Count(65_535, "Glyphs in the font."),
    variable: t.Boolean({ description: "Whether the font has variation axes (always false: variable fonts are refused)." }),
    created_at: Timestamp(),
  },
  { title: "AccountFont" },
);

const ListedAccountFont = t.Object({ ...AccountFont.properties, source: t.Literal("account") }, { title: "ListedAccountFont" });

const BuiltinFont = t.Object(
  {
    family: t.String({ maxLength: 64 }),
    source: t.Literal("builtin"),
    generic: OneOf(["sans-serif", "serif", "monospace"] as const, {
      description: "The generic name (and Tailwind class: font-sans, font-serif, font-mono) that draws it.",
    }),
    weights: t.Array(Weight, { maxItems: 9 }),
    styles: t.Array(Style, { maxItems: 2 }),
  },
  { title: "BuiltinFont" },
);

export const FontList = t.Object({ data: t.Array(t.Union([ListedAccountFont, BuiltinFont]), { maxItems: FONT_LIMITS.fonts + 8 }) }, { title: "FontList" });

export const DeletedFont = t.Object({ id: ResourceId("font"), deleted: t.Literal(true) }, { title: "DeletedFont" });
