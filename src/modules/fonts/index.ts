/**
 * The font routes: an account uploads font files (multipart/form-data, up to 5 MiB; the body
 * limit is in src/http/body.ts), lists them beside the bundled families, and deletes them. Logic
 * in src/render/fonts/account-fonts.ts; how templates use them in docs/templates.md ("Fonts").
 */
import { Elysia } from "elysia";
import { API_AUTH_ERRORS, documentedBody, errorResponses } from "../../http/error-schema.ts";
import { authOf } from "../../http/request-context.ts";
import { FONT_LIMITS } from "../../render/fonts/account-fonts.ts";
import type { Services } from "../../services.ts";
import { AccountFont, DeletedFont, FontList, FontUpload } from "./model.ts";

const MiB = 1024 * 1024;

export function fontsModule(services: Pick<Services, "accountFonts">) {
  const { accountFonts } = services;
  const tags = ["Fonts"];
  const account = (request: Request) => authOf(request).account.id;
  return new Elysia({ name: "module.fonts", prefix: "/api/fonts" })
    .get("", async ({ request }) => accountFonts.catalog(account(request)), {
      response: { 200: FontList, ...errorResponses(...API_AUTH_ERRORS) },
      detail: {
        summary: "List fonts",
        description:
          "The account's own fonts (`source: account`) and the families bundled with the server (`source: builtin`), all of which templates may name in `font-family`.",
        tags,
      },
    })
    .post(
      "",
      async ({ request, body, set }) => {
        const created = await accountFonts.upload(account(request), body as Record<string, unknown>);
        set.status = 201;
        return created;
      },
      {
        response: { 201: AccountFont, ...errorResponses(...API_AUTH_ERRORS, "VALIDATION_ERROR", "CONFLICT", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE") },
        detail: {
          summary: "Upload a font",
          description: `A multipart/form-data upload of one TTF, OTF, WOFF or WOFF2 file (\`file\`, at most ${FONT_LIMITS.fileBytes / MiB} MiB: 413 beyond), with optional \`family\`, \`weight\` (100–900) and \`style\` (normal or italic), which default to the font's own name and OS/2 tables. A file that does not parse as a font, or a variable font, is 400 VALIDATION_ERROR naming \`file\`. A font of a family, weight and style the account already has replaces it (images drawn with it are drawn again). At most ${FONT_LIMITS.fonts} fonts and ${FONT_LIMITS.accountBytes / MiB} MiB per account: 409 CONFLICT beyond.`,
          tags,
          requestBody: documentedBody(FontUpload),
        },
      },
    )
    .delete(
      "/:id",
      async ({ request, params }) => {
        await accountFonts.delete(account(request), params.id);
        return { id: params.id, deleted: true as const };
      },
      {
        response: { 200: DeletedFont, ...errorResponses(...API_AUTH_ERRORS, "NOT_FOUND") },
        detail: {
          summary: "Delete a font",
          description:
            "Templates that name its family answer 400 VALIDATION_ERROR naming it from then on (unless another of the account's fonts has the family). Another account's font is 404 NOT_FOUND, like a missing one.",
          tags,
        },
      },
    );
}
