/** Signing keys of public image URLs: create (secret shown once), list, delete. Logic in src/signing/keys.ts. */
import { Elysia, t } from "elysia";
import type { Services } from "../../services.ts";
import { API_AUTH_ERRORS, errorResponses, ResourceId, Timestamp } from "../../http/error-schema.ts";
import { MAX_SIGNING_KEYS_PER_ACCOUNT } from "../../signing/keys.ts";
import { authOf } from "../../http/request-context.ts";

const SigningKey = t.Object(
  {
    id: ResourceId("sk", "`sk_` + 20 alphanumerics; public, part of every URL it signs."),
    created_at: Timestamp(),
    last_used_at: t.Union([Timestamp(), t.Null()], { description: "Last accepted URL (kept to about a minute)." }),
  },
  { title: "SigningKey" },
);

const CreatedSigningKey = t.Object(
  {
    id: ResourceId("sk"),
    secret: t.String({
      maxLength: 48,
      pattern: "^ogsk_[A-Za-z0-9_-]{43}$",
      description: "`ogsk_` + 43 base64url characters. Shown this once; store it where your pages are built.",
    }),
    created_at: Timestamp(),
  },
  { title: "CreatedSigningKey" },
);

export function signingKeysModule(services: Pick<Services, "signingKeys">) {
  const { signingKeys } = services;
  const tags = ["Public image URLs"];
  return new Elysia({ name: "module.signing-keys", prefix: "/api/signing-keys" })
    .post(
      "",
      async ({ request, set }) => {
        const created = await signingKeys.create(authOf(request).account.id);
        set.status = 201;
        return created;
      },
      {
        response: { 201: CreatedSigningKey, ...errorResponses(...API_AUTH_ERRORS, "CONFLICT") },
        detail: {
          summary: "Create a signing key",
          description: "At most 5 per account (the 6th is 409 CONFLICT). The secret is returned only in this answer.",
          tags,
        },
      },
    )
    .get("", async ({ request }) => ({ data: await signingKeys.list(authOf(request).account.id) }), {
      response: {
        200: t.Object({ data: t.Array(SigningKey, { maxItems: MAX_SIGNING_KEYS_PER_ACCOUNT }) }, { title: "SigningKeyList" }),
        ...errorResponses(...API_AUTH_ERRORS),
      },
      detail: { summary: "List signing keys", description: "Never includes the secrets.", tags },
    })
    .delete(
      "/:id",
      async ({ request, params }) => {
        await signingKeys.delete(authOf(request).account.id, params.id);
        return { id: params.id, deleted: true as const };
      },
      {
        response: {
          200: t.Object({ id: ResourceId("sk"), deleted: t.Literal(true) }, { title: "DeletedSigningKey" }),
          ...errorResponses(...API_AUTH_ERRORS, "NOT_FOUND"),
        },
        detail: {
          summary: "Delete a signing key",
          description: "Every URL signed with it stops at once (401 INVALID_SIGNATURE), cached images included. Another account's key is 404.",
          tags,
        },
      },
    );
}
