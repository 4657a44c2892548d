/** The batch routes' schemas; the limits come from src/batches/batches.ts. */
import { t } from "elysia";
import { Count, OneOf, ResourceId, Text, Timestamp } from "../../http/error-schema.ts";
import { BATCH_ITEMS_PAGE, MAX_BATCH_ITEMS, MAX_LISTED_BATCHES } from "../../batches/batches.ts";
import { MAX_URL_BYTES } from "../images/index.ts";
import type { TSchema } from "elysia";

export const batchBodySchema = (generateBody: TSchema) =>
  t.Object(
    {
      items: t.Array(generateBody, {
        minItems: 1,
        maxItems: MAX_BATCH_ITEMS,
        description: `1 to ${MAX_BATCH_ITEMS} generate bodies (as POST /api/generate takes); \`size\` picks a size of the template's size set.`,
      }),
      signing_key_id: t.Optional(ResourceId("sk", "The signing key the items' URLs are signed with; default the account's newest.")),
    },
    {
      title: "BatchRequest",
      additionalProperties: false,
      examples: [
        {
          items: [
            { template: "event", title: "Bun Meetup Berlin" },
            { template: "event", title: "Bun Meetup Paris", theme: "light" },
          ],
        },
      ],
    },
  );

const batchFields = {
  id: ResourceId("bat", "`bat_` + 20 alphanumerics."),
  status: OneOf(["queued", "running", "done", "canceled"] as const, {
    description: "queued (nothing drawn yet), running, done (every item settled), canceled",
  }),
  total: Count(MAX_BATCH_ITEMS, "Items in the batch."),
  done: Count(MAX_BATCH_ITEMS, "Items drawn (each counted once)."),
  failed: Count(MAX_BATCH_ITEMS, "Items that failed or were canceled before they were drawn (their units given back)."),
  created_at: Timestamp(),
  finished_at: t.Union([Timestamp(), t.Null()], { description: "When the last item settled, or the batch was canceled." }),
};

export const Batch = t.Object(batchFields, { title: "Batch" });

export const BatchItem = t.Object(
  {
    index: Count(MAX_BATCH_ITEMS - 1, "The item's place in `items`, from 0."),
    status: OneOf(["queued", "done", "failed"] as const),
    url: t.Optional(
      t.String({
        maxLength: MAX_URL_BYTES,
        description: "Done: the image's signed URL (with `v` for an account template), served from the cache; fetching it counts nothing more this month.",
      }),
    ),
    error: t.Optional(Text(2048, "Failed: why (the API's code, then its message); `canceled before it was drawn` after DELETE.")),
  },
  { title: "BatchItem" },
);

export const BatchWithItems = t.Object(
  {
    ...batchFields,
    items: t.Array(BatchItem, { maxItems: BATCH_ITEMS_PAGE, description: `${BATCH_ITEMS_PAGE} items a page, in index order.` }),
    next_cursor: t.Union([t.String({ maxLength: 8, pattern: "^[0-9]+$" }), t.Null()], { description: "`?cursor=` of the next page; null on the last." }),
  },
  { title: "BatchDetail" },
);

export const BatchList = t.Object(
  { data: t.Array(Batch, { maxItems: MAX_LISTED_BATCHES, description: "The account's batches of the last 30 days, newest first." }) },
  { title: "BatchList" },
);
