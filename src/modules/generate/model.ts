/**
 * The generation request as the API documents it. The limits come from the core checker's
 * constants (src/render/request.ts) — that is where the theme, size and format rules live, and
 * the one place the format list grows. Validation itself is driven by the chosen template's
 * field schema, because the template decides which fields exist — including templates loaded
 * from OG_TEMPLATES_DIR at run time.
 */
import { t, type TSchema } from "elysia";
import { mediaBody } from "../../http/error-schema.ts";
import { DEFAULT_TEMPLATE, FORMATS, MAX_IMAGE_BYTES, MAX_SIZE, MIN_SIZE, THEMES, maxLengthOf, type TemplateLookup, urlLengthOf } from "../../render/request.ts";
import { DEFAULT_HEIGHT, DEFAULT_WIDTH } from "../../render/types.ts";

/** JPEG/WebP quality: the range and default the encoders take. */
export const QUALITY = { minimum: 1, maximum: 100, default: 85 } as const;

/** Media type of each output format; the generate response declares all of them. */
export const FORMAT_MEDIA_TYPES: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" };
export const IMAGE_MEDIA_TYPES = [...new Set([...FORMATS.map((f) => FORMAT_MEDIA_TYPES[f] ?? `image/${f}`), ...Object.values(FORMAT_MEDIA_TYPES)])];

/** A request parameter every template takes, described so a client or a form can be built from it. */
export type RequestParameter =
  | { name: string; type: "string"; default: string; enum?: string[]; description: string }
  | { name: string; type: "integer"; default: number; minimum?: number; maximum?: number; description: string };

export const COMMON_PARAMETERS: RequestParameter[] = [
  { name: "template", type: "string", default: DEFAULT_TEMPLATE, description: "Template id (see the template list)." },
  { name: "theme", type: "string", default: "dark", enum: [...THEMES], description: "Colour scheme." },
  { name: "width", type: "integer", default: DEFAULT_WIDTH, minimum: MIN_SIZE, maximum: MAX_SIZE, description: "Image width in pixels." },
  { name: "height", type: "integer", default: DEFAULT_HEIGHT, minimum: MIN_SIZE, maximum: MAX_SIZE, description: "Image height in pixels." },
  { name: "format", type: "string", default: "png", enum: [...FORMATS], description: "Output format." },
  // Offered once a lossy format is (FORMATS is the one list of formats the renderer produces).
  ...(FORMATS.some((format) => format !== "png")
    ? [
        {
          name: "quality",
          type: "integer" as const,
          default: QUALITY.default,
          minimum: QUALITY.minimum,
          maximum: QUALITY.maximum,
          description: "JPEG/WebP quality; ignored for png.",
        },
      ]
    : []),
];

function parameterSchema(p: RequestParameter) {
  const options = { default: p.default, description: p.description };
  if (p.type === "integer") return t.Integer({ minimum: p.minimum, maximum: p.maximum, ...options });
  if (p.enum)
    return t.Union(
      p.enum.map((value) => t.Literal(value)),
      options,
    );
  return t.String({ maxLength: 64, pattern: "^[A-Za-z0-9_-]+$", ...options });
}

/** What an `image_url` field takes, for the schema's description. */
export const imageValueDescription = (urlLength: number) =>
  `http(s) URL (≤ ${urlLength} characters), or data:image/…;base64 URI decoding to ≤ ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB (in a signed URL's query, ≤ ${urlLength} characters too)`;

/** The body schema for OpenAPI: the common parameters plus every field of the templates known at start. */
export function generateBodySchema(templates: TemplateLookup) {
  const properties: Record<string, TSchema> = {};
  for (const p of COMMON_PARAMETERS) properties[p.name] = t.Optional(parameterSchema(p));
  properties.size = t.Optional(
    t.String({
      maxLength: 20,
      pattern: "^[a-z][a-z0-9_-]{0,19}$",
      description: "Account templates with a size set: the named size to draw (instead of width and height).",
    }),
  );
  properties.template_version = t.Optional(
    t.Integer({ minimum: 1, maximum: 2_147_483_647, description: "Account templates: the version to draw (default the latest). `v` in a signed URL's query." }),
  );
  const all = templates.list();
  for (const template of all) {
    for (const field of template.fields) {
      if (properties[field.name]) continue;
      const owners = all.filter((other) => other.fields.some((f) => f.name === field.name)).map((other) => other.id);
      const note = owners.length === all.length ? "" : ` (${owners.join(", ")} template${owners.length > 1 ? "s" : ""})`;
      const isUrl = field.type === "image_url";
      const schema = t.String({
        maxLength: maxLengthOf(field),
        ...(field.required ? { minLength: 1 } : {}),
        description: (field.description ?? (isUrl ? imageValueDescription(urlLengthOf(field)) : "Text")) + note,
      });
      properties[field.name] = field.required && owners.length === all.length ? schema : t.Optional(schema);
    }
  }
  return t.Object(properties, {
    title: "GenerateRequest",
    // The fields of an account's own templates (text, image URL or colour values): which names
    // exist depends on the account, and the template-driven validator refuses any other name,
    // saying which template owns it.
    // Any name, its value a string: the validator checks it against the template's own field
    // schema. Declared without a type so that a generated client's index signature still
    // admits the integer properties above.
    additionalProperties: t.Unknown({ description: "A field of one of the account's own templates (text, image URL or colour: a string)." }),
    maxProperties: 64,
    examples: [
      {
        template: "event",
        theme: "dark",
        title: "Bun Meetup Berlin",
        subtitle: "Fast JavaScript, together",
        date: "May 5, 2027",
        time: "18:30 CEST",
        location: "Berlin",
        speaker_name: "Ada Lovelace",
      },
    ],
  });
}

/** The 200 answer of /api/generate: the image bytes, in the requested format. */
export const ImageResponse = mediaBody(
  Object.assign(t.File({ description: "The image, in the requested format (image/png by default)." }), { maxLength: 64 * 1024 * 1024 }),
  IMAGE_MEDIA_TYPES,
);
