/**
 * Draws batch items in the background of `ogsmith serve`: claims queued items with a lease (real
 * time; any instance on a shared database takes part), draws each exactly as its signed URL would
 * be drawn — the URL is built first and its query parsed back, so the image and its content
 * address are the ones a crawler's fetch of that URL finds — in the render pool's background lane
 * (it starts only when no interactive render waits), and settles it: counted once with its events,
 * or failed with its unit given back.
 *
 * No item is counted twice: settling is conditional on the item still being queued. An item whose
 * drawing failed for a passing reason (the renderer busy or shutting down, the store unreachable)
 * goes back to the queue; one that kills its drawer again and again fails after MAX_ATTEMPTS claims.
 */
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import { describeError, type Logger } from "../logger.ts";
import type { Metering } from "../metering/quota.ts";
import { dayOf } from "../metering/period.ts";
import { parseAccountRenderRequest } from "../render/account-request.ts";
import type { TemplateLookup } from "../render/request.ts";
import type { RenderRequest, RenderResult } from "../render/types.ts";
import { bodyFromSignedUrl, buildSignedUrl, signableFromBody } from "../signing/index.ts";
import { isStoreUnavailable } from "../store/errors.ts";
import type { AccountTemplateService } from "../templates/account-templates.ts";
import type { Outbox } from "../events/outbox.ts";
import type { BatchItemOutcome, BatchItemSettlement, BatchRecord, ClaimedBatchItem, Store } from "../store/types.ts";
import { settleBatchItem } from "./settlement.ts";

/** Claims of one item after which it fails rather than being tried again (each claim that ended without settling is a drawer that died or a passing failure). */
export const MAX_ATTEMPTS = 5;
/** How often the drawer looks for items another instance queued or a dead one left (commits on this store kick it at once). */
const TICK_MS = 1_000;
/** Finished batches past their 30 days are pruned this often (clock time). */
const PRUNE_EVERY_MS = 3_600_000;
const RETENTION_MS = 30 * 86_400_000;

/** What the drawer needs of the renderer: a prepared render in the background lane. */
export interface BatchRenderer {
  prepare(request: RenderRequest, options: { background: true }): Promise<{ contentAddress: string; render(): Promise<RenderResult> }>;
}

export interface DrawerDeps {
  store: Store;
  clock: Clock;
  metering: Pick<Metering, "decisionFor">;
  outbox: Outbox;
  logger: Logger;
  renderer: BatchRenderer;
  templates: TemplateLookup;
  accountTemplates: Pick<AccountTemplateService, "resolve" | "ids" | "fontsFor">;
  /** Where the items' URLs point (OG_BASE_URL). */
  baseUrl: string;
}

export interface DrawerOptions {
  /** Items drawn at once by this process: one per background render process. */
  concurrency: number;
  /** How long a claim protects an item (real time); longer than any drawing takes. */
  leaseMs?: number;
  /** Real time, for leases. */
  realNow?: () => number;
}

export class BatchDrawer {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly leaseMs: number;
  private readonly realNow: () => number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private unsubscribe: (() => void) | undefined;
  private pumping: Promise<void> | undefined;
  private again = false;
  private lastPrune = Number.NEGATIVE_INFINITY;
  private stopped = false;
  /** Items drawn (settled as done) by this process since start. */
  drawn = 0;

  constructor(
    private readonly deps: DrawerDeps,
    private readonly options: DrawerOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 120_000;
    this.realNow = options.realNow ?? Date.now;
  }

  async start(): Promise<void> {
    try {
      const released = await this.deps.store.releaseBatchLeases();
      if (released > 0) this.deps.logger.info("released batch items claimed by a previous process", { items: released });
    } catch (error) {
      this.deps.logger.error("releasing batch item leases failed", describeError(error));
    }
    this.unsubscribe = this.deps.store.onJobsAvailable(() => this.kick());
    this.timer = setInterval(() => {
      this.kick();
      this.prune();
    }, TICK_MS);
    this.timer.unref?.();
    this.kick();
  }

  /** No new claims; drawings in flight finish (their items settle or go back to the queue). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.pumping;
    await Promise.all([...this.inFlight]);
  }

  private prune(): void {
    const now = this.deps.clock.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.deps.store.pruneBatches(now - RETENTION_MS).catch((error) => this.deps.logger.warn("pruning old batches failed", describeError(error)));
  }

  /** Items in flight now. */
  get active(): number {
    return this.inFlight.size;
  }

  /** Looks for items now (coalesced: one claim at a time). */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = (async () => {
      do {
        this.again = false;
        await this.pumpOnce();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.pumping = undefined;
      // A kick that came after the loop's last look (an item settling between the loop's end and
      // this line) would otherwise be lost until the next tick.
      if (this.again && !this.stopped) this.kick();
    });
  }

  private async pumpOnce(): Promise<void> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0 || this.stopped) return;
    let claimed: ClaimedBatchItem[];
    try {
      claimed = await this.deps.store.claimBatchItems({ limit: free, realNow: this.realNow(), leaseMs: this.leaseMs });
    } catch (error) {
      this.deps.logger.error("claiming batch items failed", describeError(error));
      return;
    }
    for (const item of claimed) {
      const drawing = this.draw(item).finally(() => {
        this.inFlight.delete(drawing);
        this.kick();
      });
      this.inFlight.add(drawing);
    }
  }

  private async draw(item: ClaimedBatchItem): Promise<void> {
    const { store, clock } = this.deps;
    let outcome: BatchItemOutcome;
    try {
      if (item.attempts > MAX_ATTEMPTS) throw new ApiError("RENDER_FAILED", `gave up after ${MAX_ATTEMPTS} attempts (its drawing ended its process each time)`);
      const account = await store.getAccount(item.accountId);
      if (!account) return; // the account is gone, and its batches with it
      const key = await store.findSigningKey(item.signingKeyId);
      if (!key || key.key.accountId !== item.accountId) throw new ApiError("NOT_FOUND", `the signing key ${item.signingKeyId} was deleted`);
      const signable = signableFromBody(JSON.parse(item.body));
      const url = buildSignedUrl({ baseUrl: this.deps.baseUrl, keyId: key.key.id, secret: key.key.secret, ...signable });
      // Drawn from what the URL says, so its content address is the one the URL's fetch looks up.
      const request = await parseAccountRenderRequest(bodyFromSignedUrl(signable.template, signable.ext, signable.params), {
        accountId: item.accountId,
        templates: this.deps.templates,
        accountTemplates: this.deps.accountTemplates,
        callerIsAccount: false,
      });
      const prepared = await this.deps.renderer.prepare(request, { background: true });
      const result = await prepared.render();
      const now = clock.now();
      const facts = {
        requestId: item.requestId,
        template: request.template,
        width: result.width,
        height: result.height,
        generationTimeMs: result.generationTimeMs,
        batch: { id: item.batchId, index: item.index },
      };
      outcome = { ok: true, url, contentAddress: prepared.contentAddress, day: dayOf(now), decide: this.deps.metering.decisionFor(account, facts, now) };
    } catch (error) {
      if (this.stopped || isPassing(error)) {
        // Drawn again later (here or by another instance); the unit stays reserved meanwhile.
        await store.unclaimBatchItem(item.batchId, item.index).catch(() => undefined);
        return;
      }
      outcome = { ok: false, error: reasonOf(error) };
      if (!(error instanceof ApiError))
        this.deps.logger.error("drawing a batch item failed", { batch_id: item.batchId, index: item.index, ...describeError(error) });
    }
    try {
      const settlement: BatchItemSettlement = {
        batchId: item.batchId,
        index: item.index,
        now: clock.now(),
        outcome,
        completed: (batch) => this.completed(batch),
      };
      const { settled } = await store.transact((tx) => settleBatchItem(tx, settlement));
      if (settled && outcome.ok) this.drawn++;
    } catch (error) {
      // Nothing was written: the item is drawn again once its lease runs out (or at the next start).
      this.deps.logger.warn("settling a batch item failed; it is drawn again later", { batch_id: item.batchId, index: item.index, ...describeError(error) });
    }
  }

  private completed(batch: BatchRecord) {
    return this.deps.outbox.draft(
      batch.accountId,
      "batch.completed",
      { batch_id: batch.id, total: batch.total, done: batch.done, failed: batch.failed },
      this.deps.clock.now(),
    );
  }
}

/** Failures that say nothing about the item: it is drawn again later. */
function isPassing(error: unknown): boolean {
  if (isStoreUnavailable(error)) return true;
  return error instanceof ApiError && (error.code === "SERVER_BUSY" || error.code === "SERVICE_UNAVAILABLE" || error.code === "INTERNAL_ERROR");
}

/** What an item's `error` says: the API's message (its code first), never a stack. */
function reasonOf(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  return "INTERNAL_ERROR: the image could not be drawn";
}
