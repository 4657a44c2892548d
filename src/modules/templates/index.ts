/** GET /api/templates: every template with its fields, type, required flag and limit. */
import { Elysia, t } from "elysia";
import { maxLengthOf, type TemplateLookup } from "../../render/request.ts";
import { API_AUTH_ERRORS, errorResponses } from "../../http/error-schema.ts";

const TemplateList = t.Object({
  data: t.Array(
    t.Object({
      id: t.String(),
      description: t.String(),
      fields: t.Array(
        t.Object({
          name: t.String(),
          type: t.String({ description: "text | image_url" }),
          required: t.Boolean(),
          max_length: t.Integer(),
          description: t.Optional(t.String()),
        }),
      ),
    }),
  ),
});

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

export function templatesModule(templates: TemplateLookup) {
  return new Elysia({ name: "module.templates" }).get("/api/templates", () => ({ data: describeTemplates(templates) }), {
    response: { 200: TemplateList, ...errorResponses(...API_AUTH_ERRORS) },
    detail: { summary: "List templates and their fields", tags: ["Images"] },
  });
}
