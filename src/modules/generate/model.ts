import { t } from "elysia";

/**
 * Documents the built-in templates' fields for OpenAPI. Validation itself is driven by the
 * chosen template's field schema (src/render/request.ts), because the template decides which
 * fields exist — including templates loaded from OG_TEMPLATES_DIR at run time.
 */
export const GenerateBody = t.Object(
  {
    template: t.Optional(t.String({ default: "event", description: "Template id; see GET /api/templates." })),
    theme: t.Optional(t.Union([t.Literal("dark"), t.Literal("light")], { default: "dark" })),
    width: t.Optional(t.Integer({ minimum: 200, maximum: 2400, default: 1200 })),
    height: t.Optional(t.Integer({ minimum: 200, maximum: 2400, default: 630 })),
    format: t.Optional(t.Union([t.Literal("png"), t.Literal("jpeg"), t.Literal("webp")], { default: "png" })),
    quality: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 85, description: "jpeg and webp; ignored for png" })),
    title: t.String({ minLength: 1, maxLength: 200 }),
    subtitle: t.Optional(t.String({ maxLength: 300 })),
    logo_url: t.Optional(t.String({ maxLength: 2048, description: "http(s) URL or data:image/…;base64 URI" })),
    date: t.Optional(t.String({ maxLength: 300 })),
    time: t.Optional(t.String({ maxLength: 300 })),
    location: t.Optional(t.String({ maxLength: 300 })),
    speaker_name: t.Optional(t.String({ maxLength: 300 })),
    speaker_avatar_url: t.Optional(t.String({ maxLength: 2048 })),
    author_name: t.Optional(t.String({ maxLength: 300, description: "blog template" })),
    author_avatar_url: t.Optional(t.String({ maxLength: 2048, description: "blog template" })),
    reading_time: t.Optional(t.String({ maxLength: 300, description: "blog template" })),
    category: t.Optional(t.String({ maxLength: 300, description: "blog template" })),
  },
  // Unknown names are rejected by the template-driven validator, which says which template owns them.
  { additionalProperties: true, title: "GenerateRequest" },
);
