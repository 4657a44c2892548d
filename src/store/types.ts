/**
 * The store seam: everything the core keeps (accounts and keys, usage, the outbox and the job
 * table, webhooks and their delivery log, email alerts, dashboard sessions, the monthly reset)
 * goes through this one asynchronous interface of domain methods. It is composed of one small
 * port per aggregate, each in its own file under `ports/` with its records (templates have their
 * own, `ports/templates.ts`, reached as `store.templates`). Two implementations: `sqlite/` (embedded,
 * the default) and `postgres/` (several instances on one database).
 *
 * Rules every implementation keeps:
 * - Each method is atomic: it commits completely or not at all. A method that fails leaves
 *   nothing behind, so the core may retry it or undo what it reserved.
 * - Operational faults (disk full, I/O error, lock held past a short bound, database
 *   unreachable) are thrown as `StoreUnavailableError` (./errors.ts), never as driver errors;
 *   anything else that throws is a bug.
 * - Times are epoch milliseconds. "Clock time" is the service clock (the test clock when it is
 *   on); lease times are real time, since a lease protects a process, not a schedule.
 * - Records are plain objects (no driver types), so the core never sees a query builder.
 *
 * Interface changes after publication add methods or optional fields; they do not reshape
 * existing ones.
 *
 * Every record, input and port is re-exported here, so callers import them from this file.
 */
import type { FontStore } from "./ports/fonts.ts";
import type { TemplateStore } from "./ports/templates.ts";
import type { AccountsPort } from "./ports/accounts.ts";
import type { BatchesPort } from "./ports/batches.ts";
import type { EmailAlertsPort } from "./ports/email-alerts.ts";
import type { JobsPort } from "./ports/jobs.ts";
import type { SessionsPort } from "./ports/sessions.ts";
import type { SigningKeysPort } from "./ports/signing-keys.ts";
import type { UsagePort } from "./ports/usage.ts";
import type { StoreTx } from "./ports/tx.ts";
import type { WebhooksPort } from "./ports/webhooks.ts";
import type { TxRoutine } from "./tx-steps.ts";

export type { AccountChanges, AccountRecord, AccountsPort, ApiKeyRecord, KeyOwner } from "./ports/accounts.ts";
export type {
  BatchesPort,
  BatchItemOutcome,
  BatchItemRecord,
  BatchItemSettlement,
  BatchItemStatus,
  BatchRecord,
  BatchStatus,
  ClaimedBatchItem,
  NewBatch,
} from "./ports/batches.ts";
export type { AlertDraft, EmailAlertKind, EmailAlertRecord, EmailAlertState, EmailAlertsPort } from "./ports/email-alerts.ts";
export { EMAIL_JOB, EMAIL_LANE, WEBHOOK_DELIVERY_JOB } from "./ports/jobs.ts";
export type { ClaimRequest, ClaimResult, EventDraft, EventRecord, JobRecord, JobSettlement, JobsPort, JobStatus, NewJob, SettleResult } from "./ports/jobs.ts";
export type { SessionRecord, SessionsPort } from "./ports/sessions.ts";
export type { SigningKeyOwner, SigningKeyRecord, SigningKeysPort } from "./ports/signing-keys.ts";
export type { UsageCounters, UsageDecision, UsageMark, UsagePort } from "./ports/usage.ts";
export type { FontLimits, FontRecord, FontStore, NewFont } from "./ports/fonts.ts";
export type { NewTemplateVersion, StoredTemplate, TemplateListing, TemplateStore, TemplateVersionInfo } from "./ports/templates.ts";
export type {
  AlertTx,
  BatchTx,
  ClaimCandidate,
  ClaimTx,
  ConfirmTx,
  CountTx,
  DeliveryLogTx,
  EmailAlertUpdate,
  JobUpdate,
  OutboxTx,
  PlannedAlert,
  ResetTx,
  SettleTx,
  StoreTx,
  Subscription,
  WebhookDisabling,
  WebhookTx,
  WebhookWrite,
} from "./ports/tx.ts";
export type { DeliveryAttemptRecord, WebhookChanges, WebhookRecord, WebhookStatus, WebhooksPort } from "./ports/webhooks.ts";

/** How `Store.transact` runs a routine's transaction; a store ignores what does not apply to it. */
export interface TransactOptions {
  /**
   * PostgreSQL: BEGIN goes out in the same flight as the routine's first statement rather than one
   * round trip ahead of it, for hot transactions whose first statement is the one that matters
   * (a group of done units counted). SQLite's transactions have no round trips; it ignores this.
   */
  pipelined?: boolean;
}

export interface Store extends AccountsPort, UsagePort, BatchesPort, JobsPort, WebhooksPort, SigningKeysPort, EmailAlertsPort, SessionsPort {
  /** Account templates and their versions: an interface of its own (./ports/templates.ts). */
  readonly templates: TemplateStore;
  /** Account fonts, their files included: an interface of its own (./ports/fonts.ts). */
  readonly fonts: FontStore;
  readonly kind: "sqlite" | "postgres";

  /**
   * Runs one of the core's routines (../events, ../webhooks, ../batches, ../metering) in one write
   * transaction, on the transaction handle (./ports/tx.ts): it commits what the routine wrote and
   * returns its result, or writes nothing when it throws. `routine` is called for each try, since
   * PostgreSQL runs a transaction it aborted for a deadlock again, whole. A routine writes neither
   * accounts, API keys nor signing keys (SQLite keeps remembering their owners across it).
   */
  transact<T>(routine: (tx: StoreTx) => TxRoutine<T>, options?: TransactOptions): Promise<T>;

  /* operations */
  /**
   * Readiness: a real write (not only a read) within a short bound, so a full disk or a held
   * lock reports unready. Throws StoreUnavailableError when it fails.
   */
  probe(): Promise<void>;
  /** Closes connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
