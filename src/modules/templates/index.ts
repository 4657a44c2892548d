/**
 * The template routes. GET /api/templates lists every template the account can render — the
 * built-in ones, the operator's (OG_TEMPLATES_DIR) and the account's own — with each field's name,
 * type, required flag and limit, and the parameters every template takes: enough to build a
 * client or a form from this answer alone. The account's own templates (designed as data, see
 * docs/templates.md) are created, versioned, read and deleted here; logic in
 * src/templates/account-templates.ts. Bodies of these routes may be up to 1 MiB (src/http/body.ts).
 */
import { Elysia } from "elysia";
import { API_AUTH_ERRORS, documentedBody, errorResponses } from "../../http/error-schema.ts";
import { authOf } from "../../http/request-context.ts";
import { MAX_IMAGE_BYTES, maxLengthOf, type TemplateLookup, urlLengthOf } from "../../render/request.ts";
import type { TemplateField } from "../../templates/types.ts";
import type { Services } from "../../services.ts";
import { type AccountTemplateView, globalSource, MAX_TEMPLATES_PER_ACCOUNT, MAX_VERSIONS_PER_TEMPLATE } from "../../templates/account-templates.ts";
import { COMMON_PARAMETERS } from "../generate/model.ts";
import { AccountTemplate, DeletedTemplate, TemplateDefinitionBody, TemplateList, TemplateVersionList } from "./model.ts";

/** A field's bounds as the catalog states them: the longest value and, for an image field, the longest URL and the largest data: image. */
function lengthsOf(field: TemplateField): { max_length: number; max_url_length?: number; max_image_bytes?: number } {
  if (field.type !== "image_url") return { max_length: maxLengthOf(field) };
  return { max_length: maxLengthOf(field), max_url_length: urlLengthOf(field), max_image_bytes: MAX_IMAGE_BYTES };
}

export function describeTemplates(templates: TemplateLookup) {
  return templates.list().map((template) => ({
    id: template.id,
    source: globalSource(template),
    description: template.description,
    fields: template.fields.map((field) => ({
      name: field.name,
      type: field.type,
      required: field.required ?? false,
      ...lengthsOf(field),
      ...(field.description ? { description: field.description } : {}),
    })),
  }));
}

/** An account template as the list shows it: the global shape plus its version and name. */
function describeAccountTemplate(template: AccountTemplateView) {
  return {
    id: template.id,
    source: "account" as const,
    version: template.version,
    name: template.name,
    description: template.description,
    fields: template.fields.map((field) => ({
      name: field.name,
      type: field.type,
      required: field.required,
      ...lengthsOf({ name: field.name, type: field.type === "image_url" ? "image_url" : "text", maxLength: field.max_length }),
      ...(field.description ? { description: field.description } : {}),
    })),
    ...(template.sizes ? { sizes: template.sizes } : {}),
  };
}

/** The whole answer of GET /api/templates without an account's own templates (the dashboard's playground). */
export const templateCatalog = (templates: TemplateLookup) => ({ data: describeTemplates(templates), parameters: COMMON_PARAMETERS });

export interface TemplatesDeps {
  services: Pick<Services, "accountTemplates">;
  templates: TemplateLookup;
}

export function templatesModule({ services, templates }: TemplatesDeps) {
  const { accountTemplates } = services;
  const tags = ["Templates"];
  const account = (request: Request) => authOf(request).account.id;

  return new Elysia({ name: "module.templates", prefix: "/api/templates" })
    .get(
      "",
      async ({ request }) => {
        const own = await accountTemplates.list(account(request));
        const ownIds = new Set(own.map((template) => template.id));
        // The account's own template wins over an operator one of the same id.
        const shared = describeTemplates(templates).filter((template) => !ownIds.has(template.id));
        return { data: [...shared, ...own.map(describeAccountTemplate)], parameters: COMMON_PARAMETERS };
      },
      {
        response: { 200: TemplateList, ...errorResponses(...API_AUTH_ERRORS) },
        detail: {
          summary: "List templates, their fields and the common parameters",
          description:
            "Every template this account can render — built-in, operator (OG_TEMPLATES_DIR) and the account's own — each with `source`, its fields (type, required, limit) and, for account templates, the latest `version`; and the parameters every template takes (theme, size, format) with type, default and limits.",
          tags: ["Images", ...tags],
        },
      },
    )
    .post(
      "",
      async ({ request, body, set }) => {
        const created = await accountTemplates.create(account(request), body, templates);
        set.status = 201;
        return created;
      },
      {
        response: {
          201: AccountTemplate,
          ...errorResponses(...API_AUTH_ERRORS, "INVALID_JSON", "VALIDATION_ERROR", "CONFLICT", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"),
        },
        detail: {
          summary: "Create an account template",
          description: `Stores the definition as version 1. A definition error is a 400 VALIDATION_ERROR whose \`details\` name each problem (with \`line\` and \`column\` in \`html\`); nothing is stored. 409 CONFLICT for an id the account already has, the id of a built-in or operator template, or a ${MAX_TEMPLATES_PER_ACCOUNT + 1}st template. Bodies up to 1 MiB.`,
          tags,
          requestBody: documentedBody(TemplateDefinitionBody),
        },
      },
    )
    .get("/:id", async ({ request, params }) => accountTemplates.get(account(request), params.id), {
      response: { 200: AccountTemplate, ...errorResponses(...API_AUTH_ERRORS, "TEMPLATE_NOT_FOUND") },
      detail: {
        summary: "Read an account template",
        description:
          "The latest version: a definition file `ogsmith render --template-file` takes as it is. Another account's template is 404 TEMPLATE_NOT_FOUND, like a missing one.",
        tags,
      },
    })
    .put("/:id", async ({ request, params, body }) => accountTemplates.update(account(request), params.id, body, templates), {
      response: {
        200: AccountTemplate,
        ...errorResponses(
          ...API_AUTH_ERRORS,
          "INVALID_JSON",
          "VALIDATION_ERROR",
          "FORBIDDEN",
          "TEMPLATE_NOT_FOUND",
          "PAYLOAD_TOO_LARGE",
          "UNSUPPORTED_MEDIA_TYPE",
        ),
      },
      detail: {
        summary: "Update an account template (a new version)",
        description: `Stores the definition as the next version; earlier versions stay readable and renderable (the newest ${MAX_VERSIONS_PER_TEMPLATE} are kept). \`id\` may be left out of the body. A built-in or operator id is 403 FORBIDDEN.`,
        tags,
        requestBody: documentedBody(TemplateDefinitionBody),
      },
    })
    .delete(
      "/:id",
      async ({ request, params }) => {
        await accountTemplates.delete(account(request), params.id);
        return { id: params.id, deleted: true as const };
      },
      {
        response: { 200: DeletedTemplate, ...errorResponses(...API_AUTH_ERRORS, "TEMPLATE_NOT_FOUND") },
        detail: {
          summary: "Delete an account template",
          description: "Every version goes; rendering it answers 400 UNKNOWN_TEMPLATE from then on, signed URLs included.",
          tags,
        },
      },
    )
    .get("/:id/versions", async ({ request, params }) => ({ data: await accountTemplates.versions(account(request), params.id) }), {
      response: { 200: TemplateVersionList, ...errorResponses(...API_AUTH_ERRORS, "TEMPLATE_NOT_FOUND") },
      detail: { summary: "List an account template's versions", description: "The versions kept, oldest first.", tags },
    })
    .get(
      "/:id/versions/:version",
      async ({ request, params }) => {
        const version = /^[1-9]\d{0,9}$/.test(params.version) ? Number(params.version) : Number.NaN;
        return accountTemplates.get(account(request), params.id, Number.isSafeInteger(version) ? version : 0);
      },
      {
        response: { 200: AccountTemplate, ...errorResponses(...API_AUTH_ERRORS, "TEMPLATE_NOT_FOUND") },
        detail: {
          summary: "Read one version of an account template",
          description: "A version no longer kept (or never written) is 404 TEMPLATE_NOT_FOUND.",
          tags,
        },
      },
    );
}
