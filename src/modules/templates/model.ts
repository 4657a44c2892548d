/**
 * The template routes' schemas: the list every account sees (built-in, operator and its own,
 * each with `source`), an account template's definition (the create/update body) and the
 * stored template (a definition plus version, source and dates — the file `ogsmith render
 * --template-file` reads back). The definition itself is validated by the template language
 * (src/templates/account), which reports problems with their line and column; these schemas
 * document it for OpenAPI and the generated clients.
 */
import { t } from "elysia";
import { OneOf, Text, Timestamp } from "../../http/error-schema.ts";
import { MAX_DATA_URI_LENGTH, MAX_IMAGE_BYTES, MAX_SIZE, MAX_URL_LENGTH, MIN_SIZE } from "../../render/request.ts";
import { MAX_TEMPLATES_PER_ACCOUNT, MAX_VERSIONS_PER_TEMPLATE } from "../../templates/account-templates.ts";

/** Largest `html` of a definition, in bytes of UTF-8 (256 KiB). */
export const MAX_TEMPLATE_HTML_BYTES = 256 * 1024;

const GlobalId = t.String({ maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" });
export const AccountTemplateId = t.String({
  maxLength: 40,
  pattern: "^[a-z][a-z0-9_-]{0,39}$",
  description: "A lowercase letter, then up to 39 of a-z, 0-9, `_` and `-`; unique in the account.",
});
const FieldName = t.String({ maxLength: 64, pattern: "^[a-z][a-z0-9_]{0,63}$" });
const FieldType = OneOf(["text", "image_url", "color"] as const, {
  description: "text; image_url (http(s) URL or data:image/…;base64 URI, fetched by the server); color (a CSS colour)",
});
const ThemeVariables = t.Record(t.String({ maxLength: 64, pattern: "^[a-zA-Z][a-zA-Z0-9_-]{0,63}$" }), t.String({ maxLength: 200 }), {
  description: "Variable name (without the leading `--`) → CSS value; `var(--name)` in inline styles takes it.",
});
const Canvas = (description: string) =>
  t.Integer({
    minimum: MIN_SIZE,
    maximum: MAX_SIZE,
    default: description === "width" ? 1200 : 630,
    description: `Design canvas ${description} in pixels; requests of other sizes scale it.`,
  });

const FIELD_MAX_LENGTH = `Characters (code points): text at most 2000, color 64; for an image_url field, of an http(s) URL (at most ${MAX_URL_LENGTH}), as a data: image is bounded by what it decodes to (${MAX_IMAGE_BYTES / (1024 * 1024)} MiB).`;

const AccountTemplateField = t.Object(
  {
    name: FieldName,
    type: FieldType,
    required: t.Boolean(),
    max_length: t.Optional(t.Integer({ minimum: 1, maximum: MAX_URL_LENGTH, description: FIELD_MAX_LENGTH })),
    description: t.Optional(Text(300)),
  },
  { title: "AccountTemplateField" },
);

const Themes = t.Object(
  { dark: t.Optional(ThemeVariables), light: t.Optional(ThemeVariables) },
  { description: "Theme variables per theme; one set given, both themes use it." },
);
/** A size set: named sizes the same HTML is drawn at (`size: "<name>"` in a request). */
export const SizeSet = t.Record(
  t.String({ maxLength: 20, pattern: "^[a-z][a-z0-9_-]{0,19}$" }),
  t.Object({ width: t.Integer({ minimum: MIN_SIZE, maximum: MAX_SIZE }), height: t.Integer({ minimum: MIN_SIZE, maximum: MAX_SIZE }) }, { title: "NamedSize" }),
  {
    maxProperties: 8,
    description:
      'At most 8 named sizes (name → {width, height}) drawn by the same HTML (orientation classes apply); `size: "<name>"` in generate, a signed URL or a batch item picks one.',
  },
);
const Sample = t.Record(FieldName, t.String({ maxLength: 4096 }), { description: "Field values used by previews and the dashboard." });

/** The create/update body (PUT may leave `id` out: the path names it). */
export const TemplateDefinitionBody = t.Object(
  {
    id: AccountTemplateId,
    name: t.Optional(Text(100)),
    description: t.Optional(Text(500)),
    html: t.String({
      maxLength: MAX_TEMPLATE_HTML_BYTES,
      description: "HTML with inline CSS (and Tailwind classes) and `{{placeholders}}`, at most 256 KiB, 2,000 elements, 48 levels; see docs/templates.md.",
    }),
    fields: t.Optional(
      t.Array(
        t.Object({
          name: FieldName,
          type: FieldType,
          required: t.Optional(t.Boolean({ default: false })),
          max_length: t.Optional(t.Integer({ minimum: 1, maximum: MAX_URL_LENGTH, description: FIELD_MAX_LENGTH })),
          description: t.Optional(Text(300)),
        }),
        { maxItems: 30 },
      ),
    ),
    themes: t.Optional(Themes),
    width: t.Optional(Canvas("width")),
    height: t.Optional(Canvas("height")),
    sizes: t.Optional(SizeSet),
    sample: t.Optional(Sample),
  },
  {
    title: "TemplateDefinition",
    additionalProperties: false,
    examples: [
      {
        id: "promo",
        name: "Promo card",
        html: '<div style="display:flex;width:100%;height:100%;align-items:center;justify-content:center;background:var(--bg);color:{{accent}}"><h1 style="font-size:72px">{{title}}</h1></div>',
        fields: [
          { name: "title", type: "text", required: true, max_length: 80 },
          { name: "accent", type: "color" },
        ],
        themes: { dark: { bg: "#0b1020" }, light: { bg: "#f8fafc" } },
        sample: { title: "Spring sale", accent: "#f59e0b" },
      },
    ],
  },
);

export const AccountTemplate = t.Object(
  {
    id: AccountTemplateId,
    version: t.Integer({ minimum: 1, maximum: 2_147_483_647, description: "1 at creation; each PUT adds one." }),
    name: Text(100),
    description: Text(500),
    fields: t.Array(AccountTemplateField, { maxItems: 30 }),
    themes: Themes,
    width: Canvas("width"),
    height: Canvas("height"),
    sizes: t.Optional(SizeSet),
    sample: Sample,
    html: t.String({ maxLength: MAX_TEMPLATE_HTML_BYTES }),
    source: t.Literal("account"),
    created_at: Timestamp("When the template was created (version 1)."),
    updated_at: Timestamp("When this version was written."),
  },
  { title: "AccountTemplate" },
);

export const TemplateVersionList = t.Object(
  {
    data: t.Array(t.Object({ version: t.Integer({ minimum: 1, maximum: 2_147_483_647 }), created_at: Timestamp() }, { title: "TemplateVersion" }), {
      maxItems: MAX_VERSIONS_PER_TEMPLATE,
      description: `The versions kept (the newest ${MAX_VERSIONS_PER_TEMPLATE}), oldest first.`,
    }),
  },
  { title: "TemplateVersionList" },
);

export const DeletedTemplate = t.Object({ id: AccountTemplateId, deleted: t.Literal(true) }, { title: "DeletedTemplate" });

/* ── the list every account sees ── */

const TemplateField = t.Object(
  {
    name: t.String({ maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" }),
    type: FieldType,
    required: t.Boolean(),
    max_length: t.Integer({
      minimum: 1,
      maximum: MAX_DATA_URI_LENGTH,
      description: "The longest value, in characters (code points); for an image_url field, that of a data: image (what bounds it is max_image_bytes).",
    }),
    max_url_length: t.Optional(
      t.Integer({
        minimum: 1,
        maximum: MAX_URL_LENGTH,
        description: "image_url fields: the longest http(s) URL, and the longest value (a data: image included) in a signed URL's query.",
      }),
    ),
    max_image_bytes: t.Optional(
      t.Integer({ minimum: 1, maximum: MAX_IMAGE_BYTES, description: "image_url fields: the most a data: image may decode to, in bytes." }),
    ),
    description: t.Optional(Text(1024)),
  },
  { title: "TemplateField" },
);

export const TemplateSummary = t.Object(
  {
    id: GlobalId,
    source: OneOf(["builtin", "operator", "account"] as const, {
      description: "builtin (shipped), operator (OG_TEMPLATES_DIR), account (this account's own, through this API)",
    }),
    version: t.Optional(t.Integer({ minimum: 1, maximum: 2_147_483_647, description: "Account templates: the latest version." })),
    name: t.Optional(Text(100, "Account templates: the name given.")),
    description: Text(1024),
    fields: t.Array(TemplateField, { maxItems: 100 }),
    sizes: t.Optional(SizeSet),
  },
  { title: "Template" },
);

// One type per property: a parameter is a string one or an integer one, told apart by `type`,
// so a generated client gets `default: string` or `default: number`, never a union of both.
const StringParameter = t.Object(
  {
    name: GlobalId,
    type: t.Literal("string"),
    default: t.String({ maxLength: 64 }),
    enum: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 100, description: "The allowed values." })),
    description: Text(1024),
  },
  { title: "StringParameter" },
);
const IntegerParameter = t.Object(
  {
    name: GlobalId,
    type: t.Literal("integer"),
    default: t.Integer({ minimum: 0, maximum: MAX_SIZE }),
    minimum: t.Optional(t.Integer({ minimum: 0, maximum: MAX_SIZE })),
    maximum: t.Optional(t.Integer({ minimum: 0, maximum: MAX_SIZE })),
    description: Text(1024),
  },
  { title: "IntegerParameter" },
);
const RequestParameterSchema = t.Union([StringParameter, IntegerParameter], { description: "A request parameter; `type` says which kind." });

export const TemplateList = t.Object(
  {
    data: t.Array(TemplateSummary, { maxItems: 1000 + MAX_TEMPLATES_PER_ACCOUNT }),
    parameters: t.Array(RequestParameterSchema, { maxItems: 100, description: "Request parameters every template takes, besides its own fields." }),
  },
  { title: "TemplateList" },
);
