/**
 * Batches (POST /api/batches): many images in one call. Creating one validates every item first
 * (any invalid item is a 400 naming it, `items[3].title`, and nothing is queued), picks the
 * signing key its URLs are signed with, and reserves its `total` units at once (429
 * QUOTA_EXCEEDED, nothing queued, when fewer are left). Its items are drawn in the background
 * (./drawer.ts); reading, listing and canceling it are here. The store's part is
 * ../store/ports/batches.ts, what its transactions write ./settlement.ts.
 */
import type { AccountRecord } from "../store/types.ts";
import type { Clock } from "../clock.ts";
import { ApiError, validationError, type FieldProblem } from "../errors.ts";
import { newId } from "../ids.ts";
import { periodOf } from "../metering/period.ts";
import { limitsOf } from "../accounts/plans.ts";
import { parseAccountRenderRequest } from "../render/account-request.ts";
import type { TemplateLookup } from "../render/request.ts";
import { signableFromBody, SigningInputError } from "../signing/index.ts";
import type { AccountTemplateService } from "../templates/account-templates.ts";
import type { BatchItemRecord, BatchRecord, NewBatch, Store } from "../store/types.ts";
import { cancelBatch, createBatch } from "./settlement.ts";

export const MAX_BATCH_ITEMS = 1000;
/** The body of POST /api/batches may be up to 5 MiB (src/http/body.ts). */
export const MAX_BATCH_BODY_BYTES = 5 * 1024 * 1024;
/** Items per page of GET /api/batches/{id}. */
export const BATCH_ITEMS_PAGE = 100;
/** Batches are kept (and listed) this long after they were created, then pruned once finished. */
export const BATCH_RETENTION_MS = 30 * 86_400_000;
/** Most batches one list answers. */
export const MAX_LISTED_BATCHES = 1000;
/** Most problems one refusal lists (a thousand broken items would make an answer of megabytes). */
const MAX_PROBLEMS = 200;

export interface BatchItemView {
  index: number;
  status: "queued" | "done" | "failed";
  url?: string;
  error?: string;
}

export interface BatchView {
  id: string;
  status: BatchRecord["status"];
  total: number;
  done: number;
  failed: number;
  created_at: string;
  finished_at: string | null;
}

export interface BatchDeps {
  store: Store;
  clock: Clock;
  templates: TemplateLookup;
  accountTemplates: Pick<AccountTemplateService, "resolve" | "ids" | "fontsFor">;
}

export class BatchService {
  constructor(private readonly deps: BatchDeps) {}

  /** Validates every item, reserves the units and queues the batch. */
  async create(account: AccountRecord, requestId: string, body: unknown): Promise<BatchView> {
    const input = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    if (!input) throw validationError([{ field: "body", message: "must be a JSON object {items, signing_key_id?}" }]);
    const problems: FieldProblem[] = [];
    for (const key of Object.keys(input))
      if (key !== "items" && key !== "signing_key_id") problems.push({ field: key, message: "is not part of a batch (items, signing_key_id)" });
    const { items, signing_key_id: keyId } = input;
    if (!Array.isArray(items) || items.length < 1 || items.length > MAX_BATCH_ITEMS) {
      problems.push({ field: "items", message: `must be a list of 1 to ${MAX_BATCH_ITEMS} generate bodies` });
      throw validationError(problems);
    }
    if (keyId !== undefined && (typeof keyId !== "string" || keyId === ""))
      problems.push({ field: "signing_key_id", message: "must be a signing key id (sk_…)" });

    const bodies: string[] = [];
    for (const [index, item] of items.entries()) {
      const checked = await this.checkItem(account.id, item, `items[${index}]`, problems);
      bodies.push(checked ?? "");
      if (problems.length >= MAX_PROBLEMS) break;
    }
    const key = problems.length === 0 ? await this.signingKey(account.id, keyId as string | undefined, problems) : undefined;
    if (problems.length > 0 || !key) throw validationError(problems.slice(0, MAX_PROBLEMS));

    const { monthlyQuota } = limitsOf(account);
    const now = this.deps.clock.now();
    const batch: NewBatch = {
      id: newId("bat"),
      accountId: account.id,
      signingKeyId: key,
      requestId,
      period: periodOf(now),
      quota: monthlyQuota,
      createdAt: now,
      items: bodies,
    };
    const created = await this.deps.store.transact((tx) => createBatch(tx, batch));
    if ("left" in created) {
      throw new ApiError(
        "QUOTA_EXCEEDED",
        `Monthly quota exceeded. Limit: ${monthlyQuota} images. This batch needs ${bodies.length}; ${created.left} left this month.`,
      );
    }
    return batchView(created.batch);
  }

  /** The batch with one page of its items from `cursor` (an index, as next_cursor gave it). */
  async get(accountId: string, id: string, cursor: unknown): Promise<BatchView & { items: BatchItemView[]; next_cursor: string | null }> {
    let from = 0;
    if (cursor !== undefined && cursor !== null && cursor !== "") {
      if (typeof cursor !== "string" || !/^\d{1,7}$/.test(cursor))
        throw validationError([{ field: "cursor", message: "must be a next_cursor of an earlier page" }]);
      from = Number(cursor);
    }
    const batch = await this.find(accountId, id);
    const items = await this.deps.store.batchItems(batch.id, from, BATCH_ITEMS_PAGE);
    const next = from + BATCH_ITEMS_PAGE;
    return { ...batchView(batch), items: items.map(itemView), next_cursor: next < batch.total ? String(next) : null };
  }

  /** The account's batches of the last 30 days, newest first. */
  async list(accountId: string): Promise<BatchView[]> {
    const since = this.deps.clock.now() - BATCH_RETENTION_MS;
    return (await this.deps.store.listBatches(accountId, since, MAX_LISTED_BATCHES)).map(batchView);
  }

  /** Items not yet drawn are canceled and their units given back; drawn ones stay. */
  async cancel(accountId: string, id: string): Promise<BatchView> {
    if (!BATCH_ID.test(id)) throw notFound(id);
    const now = this.deps.clock.now();
    const batch = await this.deps.store.transact((tx) => cancelBatch(tx, accountId, id, now));
    if (!batch) throw notFound(id);
    return batchView(batch);
  }

  /** The account's batch, or 404 (another account's looks the same). */
  async find(accountId: string, id: string): Promise<BatchRecord> {
    const batch = BATCH_ID.test(id) ? await this.deps.store.getBatch(accountId, id) : undefined;
    if (!batch) throw notFound(id);
    return batch;
  }

  /** Every item of the batch, in index order, a page at a time (the archive). */
  async *allItems(batchId: string): AsyncGenerator<BatchItemRecord> {
    for (let from = 0; ; from += BATCH_ITEMS_PAGE) {
      const page = await this.deps.store.batchItems(batchId, from, BATCH_ITEMS_PAGE);
      yield* page;
      if (page.length < BATCH_ITEMS_PAGE) return;
    }
  }

  /** Deletes finished batches past their 30 days. */
  prune(): Promise<number> {
    return this.deps.store.pruneBatches(this.deps.clock.now() - BATCH_RETENTION_MS);
  }

  /**
   * One item, validated as POST /api/generate would (and as its signed URL will be): its problems
   * named under `where`. Returns the body to store, an account template's version pinned, so every
   * item draws the version that was the latest when the batch was made.
   */
  private async checkItem(accountId: string, item: unknown, where: string, problems: FieldProblem[]): Promise<string | undefined> {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      problems.push({ field: where, message: "must be a JSON object (a generate body)" });
      return undefined;
    }
    const body = { ...(item as Record<string, unknown>) };
    try {
      const request = await parseAccountRenderRequest(body, {
        accountId,
        templates: this.deps.templates,
        accountTemplates: this.deps.accountTemplates,
        callerIsAccount: true,
      });
      if (request.accountTemplate) body.template_version = request.accountTemplate.version;
      signableFromBody(body);
      return JSON.stringify(body);
    } catch (error) {
      if (error instanceof SigningInputError) problems.push({ field: `${where}.${error.field}`, message: error.message.slice(error.field.length + 2) });
      else if (error instanceof ApiError && (error.code === "VALIDATION_ERROR" || error.code === "UNKNOWN_TEMPLATE")) {
        for (const problem of error.details ?? [{ field: "template", message: error.message }]) {
          problems.push({ ...problem, field: problem.field === "body" ? where : `${where}.${problem.field}` });
        }
      } else throw error;
      return undefined;
    }
  }

  /** The named signing key, or the account's newest; a problem naming signing_key_id when there is none. */
  private async signingKey(accountId: string, keyId: string | undefined, problems: FieldProblem[]): Promise<string | undefined> {
    const keys = await this.deps.store.listSigningKeys(accountId);
    if (keyId === undefined) {
      const newest = keys.reduce<(typeof keys)[number] | undefined>((best, key) => (!best || key.createdAt >= best.createdAt ? key : best), undefined);
      if (!newest)
        problems.push({ field: "signing_key_id", message: "the account has no signing key: create one (POST /api/signing-keys) to sign the batch's URLs" });
      return newest?.id;
    }
    if (!keys.some((key) => key.id === keyId)) {
      problems.push({ field: "signing_key_id", message: `no signing key ${keyId} in this account` });
      return undefined;
    }
    return keyId;
  }
}

export const BATCH_ID = /^bat_[A-Za-z0-9]{20}$/;

const notFound = (id: string) => new ApiError("NOT_FOUND", `No batch ${id} in this account.`);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function batchView(batch: BatchRecord): BatchView {
  return {
    id: batch.id,
    status: batch.status,
    total: batch.total,
    done: batch.done,
    failed: batch.failed,
    created_at: iso(batch.createdAt)!,
    finished_at: iso(batch.finishedAt),
  };
}

function itemView(item: BatchItemRecord): BatchItemView {
  return { index: item.index, status: item.status, ...(item.url ? { url: item.url } : {}), ...(item.error ? { error: item.error } : {}) };
}
