/**
 * GET /api/templates: every template with its fields (name, type, required flag, limit), and the
 * parameters every template takes (theme, size, format, quality) with type, default and limits —
 * enough to build a client or a form from this answer alone. The dashboard's playground does.
 */
import { Elysia, t } from "elysia";
import { maxLengthOf, MAX_SIZE, MAX_URL_LENGTH, type TemplateLookup } from "../../render/request.ts";
import { API_AUTH_ERRORS, errorResponses, Text } from "../../http/error-schema.ts";
import { COMMON_PARAMETERS } from "../generate/model.ts";

const Name = t.String({ maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" });

const TemplateField = t.Object(
  {
    name: Name,
    type: t.Union([t.Literal("text"), t.Literal("image_url"), t.Literal("color")], { description: "text, image_url (http(s) URL or data:image/…;base64 URI), or color (a CSS colour)" }),
    required: t.Boolean(),
    max_length: t.Integer({ minimum: 1, maximum: MAX_URL_LENGTH * 4, description: "Characters (code points)." }),
    description: t.Optional(Text(1024)),
  },
  { title: "TemplateField" },
);

const Template = t.Object(
  { id: Name, description: Text(1024), fields: t.Array(TemplateField, { maxItems: 100 }) },
  { title: "Template" },
);

// One type per property: a parameter is a string one or an integer one, told apart by `type`,
// so a generated client gets `default: string` or `default: number`, never a union of both.
const StringParameter = t.Object(
  {
    name: Name,
    type: t.Literal("string"),
    default: t.String({ maxLength: 64 }),
    enum: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 100, description: "The allowed values." })),
    description: Text(1024),
  },
  { title: "StringParameter" },
);
const IntegerParameter = t.Object(
  {
    name: Name,
    type: t.Literal("integer"),
    default: t.Integer({ minimum: 0, maximum: MAX_SIZE }),
    minimum: t.Optional(t.Integer({ minimum: 0, maximum: MAX_SIZE })),
    maximum: t.Optional(t.Integer({ minimum: 0, maximum: MAX_SIZE })),
    description: Text(1024),
  },
  { title: "IntegerParameter" },
);
const RequestParameterSchema = t.Union([StringParameter, IntegerParameter], { description: "A request parameter; `type` says which kind." });

const TemplateList = t.Object(
  {
    data: t.Array(Template, { maxItems: 1000 }),
    parameters: t.Array(RequestParameterSchema, { maxItems: 100, description: "Request parameters every template takes, besides its own fields." }),
  },
  { title: "TemplateList" },
);

export function describeTemplates(templates: TemplateLookup) {
  return templates.list().map((template) => ({
    id: template.id,
    description: template.description,
    fields: template.fields.map((field) => ({
      name: field.name,
      type: field.type,
      required: field.required ?? false,
      max_length: maxLengthOf(field),
      ...(field.description ? { description: field.description } : {}),
    })),
  }));
}

/** The whole answer of GET /api/templates (also served to the dashboard). */
export const templateCatalog = (templates: TemplateLookup) => ({ data: describeTemplates(templates), parameters: COMMON_PARAMETERS });

export function templatesModule(templates: TemplateLookup) {
  return new Elysia({ name: "module.templates" }).get("/api/templates", () => templateCatalog(templates), {
    response: { 200: TemplateList, ...errorResponses(...API_AUTH_ERRORS) },
    detail: {
      summary: "List templates, their fields and the common parameters",
      description: "Every template with its own fields (type, required, limit), and the parameters every template takes (theme, size, format) with type, default and limits.",
      tags: ["Images"],
    },
  });
}
