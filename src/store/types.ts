/**
 * The store seam: everything the core keeps (accounts and keys, usage, the outbox and the job
 * table, webhooks and their delivery log, email alerts, dashboard sessions, the monthly reset)
 * goes through this one asynchronous interface of domain methods. Two implementations:
 * `sqlite/` (embedded, the default) and `postgres/` (several instances on one database).
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
 */

import type { TemplateStore } from "./templates.ts";

/* ───────────────────────────── records ───────────────────────────── */

export interface AccountRecord {
  /** `acc_` + random id. */
  id: string;
  email: string;
  /** One of the plan ids in src/accounts/plans.ts. */
  plan: string;
  /** Subscription state: active | canceled | past_due. */
  status: string;
  /** Monthly quota for the `custom` plan; null means "the plan's quota". */
  customQuota: number | null;
  /** Requests per second for the `custom` plan; null means "the plan's rate". */
  customRequestsPerSecond: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface ApiKeyRecord {
  /** `key_` + random id; safe to log. */
  id: string;
  accountId: string;
  /** Lowercase hex SHA-256 of the full key. The key itself is never stored. */
  keyHash: string;
  /** `og_` plus the first 4 characters. */
  keyPrefix: string;
  createdAt: number;
  /** Set when the key was replaced; a revoked key is refused at once. */
  revokedAt: number | null;
}

/** What an accepted key resolves to. */
export interface KeyOwner {
  account: AccountRecord;
  keyId: string;
  keyPrefix: string;
}

/** One account's counters for one calendar month (UTC, `YYYY-MM`). */
export interface UsageCounters {
  accountId: string;
  period: string;
  /** Successful generations answered this month. */
  used: number;
  /** Units reserved by generations in flight. */
  reserved: number;
  /** When each usage event was emitted this month (null = not yet): each fires once a month. */
  warned80At: number | null;
  warned90At: number | null;
  warned95At: number | null;
  limitReachedAt: number | null;
  /** When `usage.reset` was emitted for the start of this month (null = not yet). */
  resetEmittedAt: number | null;
}

/** The once-a-month marks a confirmation may set (see `UsageDecision`). */
export type UsageMark = "warned80At" | "warned90At" | "warned95At" | "limitReachedAt";

export interface EventRecord {
  /** `evt_` + random id; the same on every delivery attempt of this event. */
  id: string;
  accountId: string;
  /** image.generated | usage.warning | usage.limit_reached | usage.reset */
  type: string;
  /**
   * JSON text of the envelope's `data`, stored and returned byte for byte (not re-serialized:
   * every retry must send identical bytes, so PostgreSQL keeps it as text, not jsonb).
   */
  data: string;
  /** Clock time of the change; the envelope's `timestamp`. */
  createdAt: number;
}

export type WebhookStatus = "enabled" | "disabled";

export interface WebhookRecord {
  /** `wh_` + random id. */
  id: string;
  accountId: string;
  url: string;
  /** Subscribed event names, in the order given. */
  events: string[];
  /** The signing secret as given (HMAC needs the raw value). Never returned by the API, never logged. */
  secret: string;
  status: WebhookStatus;
  /** Why it was disabled (null while enabled). */
  disabledReason: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One HTTP attempt in a webhook's delivery log. */
export interface DeliveryAttemptRecord {
  /** `dlv_` + random id, sent as `X-OG-Delivery`. */
  id: string;
  webhookId: string;
  accountId: string;
  /** The job this attempt ran for; null for test sends. */
  jobId: string | null;
  /** The envelope's `id` (test events are not stored as events). */
  eventId: string;
  eventType: string;
  /** 1 for the first attempt of an event. */
  attempt: number;
  /** The receiver's HTTP status; null when no response came. */
  statusCode: number | null;
  /** Why it failed; null when delivered. */
  error: string | null;
  delivered: boolean;
  /** Real time the attempt took, ms. */
  durationMs: number;
  /** When the next retry is due (clock time); null when none follows. */
  nextAttemptAt: number | null;
  createdAt: number;
}

export type JobStatus = "pending" | "succeeded" | "failed" | "canceled";

export interface JobRecord {
  /** `job_` + random id. */
  id: string;
  /** Which handler runs it (`webhook_delivery`, `email`, …). */
  kind: string;
  /** Fairness key: jobs of one lane share a concurrency cap (a webhook id, or `smtp`). */
  lane: string;
  accountId: string | null;
  /** Set for webhook deliveries; deleting the webhook deletes its jobs. */
  webhookId: string | null;
  /** The outbox event the job reports, when there is one. */
  eventId: string | null;
  /** Kind-specific input (JSON-serializable), null when the columns say everything. */
  payload: unknown;
  status: JobStatus;
  /** When the job is due next (clock time). */
  runAt: number;
  /** Attempts started so far; a claim increments it. */
  attempts: number;
  /** Lease end (real time); null when nobody holds it. */
  claimedUntil: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  /** When it left `pending` (clock time). */
  finishedAt: number | null;
}

export type EmailAlertKind = "usage_warning" | "usage_critical" | "quota_exceeded" | "webhook_disabled";
/** pending (queued or retrying) → sent | failed | not_sent (no SMTP_URL). */
export type EmailAlertState = "pending" | "sent" | "failed" | "not_sent";

export interface EmailAlertRecord {
  /** `eml_` + random id. */
  id: string;
  accountId: string;
  kind: EmailAlertKind;
  /** The account's email address when the alert was raised. */
  recipient: string;
  subject: string;
  /** The numbers the message shows. */
  facts: Record<string, unknown>;
  state: EmailAlertState;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  /** Unique when set: `<account>:<YYYY-MM>:<kind>` makes a usage alert once a month. */
  dedupeKey: string | null;
  /** The `job_…` that sends it. */
  jobId: string | null;
  createdAt: number;
  updatedAt: number;
  sentAt: number | null;
}

export interface SessionRecord {
  /** Lowercase hex SHA-256 of the cookie token (the token itself is never stored). */
  tokenHash: string;
  /** `ses_` + random id, safe to log. */
  id: string;
  accountId: string;
  /** The key the session was opened with; replacing it ends the session. */
  keyId: string;
  createdAt: number;
  /**
   * Service-clock ms after which the session is refused: the idle timeout from its last use,
   * never past its absolute lifetime from `createdAt`.
   */
  expiresAt: number;
}

/** A signing key for public image URLs. */
export interface SigningKeyRecord {
  /** `sk_` + 20 alphanumerics; public (it is part of every URL it signs). */
  id: string;
  accountId: string;
  /** `ogsk_…` as issued: HMAC verification needs it. Never returned after creation, never logged. */
  secret: string;
  createdAt: number;
  /** Clock time of the last accepted URL, kept coarsely (at most about once a minute). */
  lastUsedAt: number | null;
}

/** What a signed URL's key id resolves to. */
export interface SigningKeyOwner {
  key: SigningKeyRecord;
  account: AccountRecord;
}

/* ───────────────────────────── inputs ───────────────────────────── */

/** Job kinds and lanes the store itself creates when it fans an event out. */
export const WEBHOOK_DELIVERY_JOB = "webhook_delivery";
export const EMAIL_JOB = "email";
/** All emails share one lane: the SMTP server is one endpoint. */
export const EMAIL_LANE = "smtp";

/** An email alert to raise in the same transaction as the event (or disabling) that causes it. */
export interface AlertDraft {
  kind: EmailAlertKind;
  subject: string;
  facts: Record<string, unknown>;
  /** See `EmailAlertRecord.dedupeKey`; null for alerts that may repeat. */
  dedupeKey: string | null;
}

/**
 * An outbox event to record. Recording one (in whatever method's transaction) always does the
 * same three things, so the event exists if and only if the change that causes it committed:
 *  1. inserts the event (`evt_` id generated by the store unless given);
 *  2. fans out: one `WEBHOOK_DELIVERY_JOB` job per *enabled* webhook of the account whose
 *     `events` include the type — lane = webhook id, webhookId, eventId, accountId set,
 *     runAt = the event's `createdAt`;
 *  3. raises `alert` when present: reads the account's email as recipient (skipped if the
 *     account is gone), inserts the alert unless its dedupeKey exists already (then nothing
 *     more), and queues one `EMAIL_JOB` job (lane `EMAIL_LANE`, payload `{alert_id}`, runAt now)
 *     whose id is stored in the alert's `jobId`.
 */
export interface EventDraft {
  type: string;
  /** JSON text of `data` (see EventRecord.data). */
  data: string;
  alert?: AlertDraft;
}

/** What the core decides, inside the confirmation's transaction, from the counters after it. */
export interface UsageDecision {
  /** Marks to set to `now` (each only ever set once a month). */
  marks: UsageMark[];
  /** Events to record (with their fan-out), in order. */
  events: EventDraft[];
}

export interface NewJob {
  kind: string;
  lane: string;
  accountId?: string | null;
  webhookId?: string | null;
  eventId?: string | null;
  payload?: unknown;
  /** Clock time when it is first due. */
  runAt: number;
  /** Clock time of creation. */
  now: number;
}

export interface ClaimRequest {
  /** Only these kinds are claimed (others belong to someone else). */
  kinds: string[];
  limit: number;
  /** How many more jobs of this lane the caller can take now (called synchronously, per candidate). */
  laneRoom: (lane: string) => number;
  /** Clock time: due means `runAt <= now`. */
  now: number;
  /** Real time: a lease with `claimedUntil < realNow` has expired. */
  realNow: number;
  /** Claimed jobs get `claimedUntil = realNow + leaseMs`. */
  leaseMs: number;
  /**
   * When the oldest due jobs (a window of `limit * 2 + 16`) all sit in lanes that are full,
   * search past them for other lanes.
   */
  searchPastFullLanes?: boolean;
}

export interface ClaimResult {
  /** Claimed jobs, as they are after the claim (attempts incremented, lease set). */
  jobs: JobRecord[];
  /** The search past full lanes ran and found nothing (the caller skips it until something new may be due). */
  searchedEmpty: boolean;
}

/**
 * One attempt's outcome. The core has already computed what follows from the retry schedule;
 * the store applies it only while the job is still `pending` (it may have been canceled or
 * deleted while the attempt ran), together with the kind's bookkeeping, in one transaction.
 */
export interface JobSettlement {
  jobId: string;
  /** Clock time of settling. */
  now: number;
  /** The status to set (pending = retry at `runAt`). Clears the lease. */
  status: JobStatus;
  runAt: number;
  lastError: string | null;
  /**
   * Webhook deliveries: the attempt to log. Logged whether or not the job was still pending,
   * but only while the webhook exists (a deleted webhook's log is gone with it).
   */
  deliveryAttempt?: DeliveryAttemptRecord;
  /**
   * Webhook deliveries that gave up: only if the job was pending and the webhook is still
   * enabled — disable it with `reason`, cancel its pending jobs, and raise `alert` when given.
   */
  disableWebhook?: { webhookId: string; reason: string; alert?: AlertDraft };
  /** Email jobs: only if the job was pending — update the alert row. */
  emailAlert?: { alertId: string; state: EmailAlertState; attempts: number; lastError: string | null; nextAttemptAt: number | null; sentAt: number | null };
}

export interface SettleResult {
  /** False when the job had left `pending` (canceled, deleted) while the attempt was in flight. */
  wasPending: boolean;
  /** The job's status after settling (`canceled` when it no longer exists). */
  status: JobStatus;
}

export interface AccountChanges {
  email: string;
  plan: string;
  status: string;
  customQuota: number | null;
  customRequestsPerSecond: number | null;
  updatedAt: number;
}

export interface WebhookChanges {
  url: string;
  events: string[];
  /** Rotates the secret when given. */
  secret?: string;
  /**
   * true: a disabled webhook becomes enabled (reason cleared; its dropped deliveries stay
   * dropped). false: an enabled webhook becomes disabled with `disableReason` and its pending
   * jobs are canceled. Either is a no-op when the webhook is already in that state.
   */
  enabled?: boolean;
  disableReason: string;
  now: number;
}

/* ───────────────────────────── the interface ───────────────────────────── */

export interface Store {
  /** Account templates and their versions: an interface of its own (./templates.ts). */
  readonly templates: TemplateStore;
  readonly kind: "sqlite" | "postgres";

  /* accounts and keys */
  countAccounts(): Promise<number>;
  /** Inserts the account and its first key together. */
  createAccount(account: AccountRecord, key: ApiKeyRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  /** Every account, oldest first, with the prefix of its active key. */
  listAccounts(): Promise<{ account: AccountRecord; keyPrefix: string | null }[]>;
  /** Returns the updated account, or undefined when there is none with this id. */
  updateAccount(id: string, changes: AccountChanges): Promise<AccountRecord | undefined>;
  /** The newest unrevoked key's prefix. */
  activeKeyPrefix(accountId: string): Promise<string | null>;
  /** Revokes every active key of the account (revokedAt = key.createdAt) and inserts `key`, atomically; false when the account does not exist. */
  replaceKey(accountId: string, key: ApiKeyRecord): Promise<boolean>;
  /** The account behind an unrevoked key with this hash. Must see a replacement at once (no cache). */
  findAccountByKeyHash(keyHash: string): Promise<KeyOwner | undefined>;
  /** Every key of the account (revoked ones included); for operators and tests. */
  listApiKeys(accountId: string): Promise<ApiKeyRecord[]>;

  /* metering */
  /**
   * Reserves one unit of `period` for the account if `used + reserved < quota`, creating the
   * month's counters when missing, in one conditional statement (exact under concurrency: 200
   * concurrent calls against 10 remaining units reserve exactly 10). True when reserved.
   */
  reserveUnit(input: { accountId: string; period: string; quota: number }): Promise<boolean>;
  /** Gives one reserved unit back (never below zero). */
  releaseUnit(input: { accountId: string; period: string }): Promise<void>;
  /**
   * Confirms a reserved unit in one transaction: used + 1, reserved - 1 (not below 0), the
   * day's count + 1; then calls `decide` synchronously with the counters after the increment
   * (the row is locked, so concurrent confirmations see distinct values), sets its marks to
   * `now` and records its events. Returns the counters after the increment.
   */
  confirmUnit(input: { accountId: string; period: string; day: string; now: number; decide: (after: UsageCounters) => UsageDecision }): Promise<UsageCounters>;
  /**
   * Counts work that is already done (a cached image) in one transaction: takes one unit only
   * while used + reserved < quota (creating the month's row when missing), then as `confirmUnit`
   * without a reservation to move. Undefined, with nothing written, when no unit is left.
   */
  countUnit(input: { accountId: string; period: string; quota: number; day: string; now: number; decide: (after: UsageCounters) => UsageDecision }): Promise<UsageCounters | undefined>;
  /**
   * Public image URLs: like `confirmUnit`, but first inserts (account, period, contentAddress)
   * into the counted-images set in the same transaction. When that row exists already (another
   * request or instance counted this image this month), nothing is counted: the reservation is
   * given back in the same transaction and the result is undefined.
   */
  confirmImageUnit(input: { accountId: string; period: string; day: string; now: number; contentAddress: string; decide: (after: UsageCounters) => UsageDecision }): Promise<UsageCounters | undefined>;
  /** Whether this content address was counted for the account in `period`. */
  isImageCounted(input: { accountId: string; period: string; contentAddress: string }): Promise<boolean>;
  /** The month's counters, or undefined when nothing happened in it. */
  usage(accountId: string, period: string): Promise<UsageCounters | undefined>;
  /** Successful generations per day (`YYYY-MM-DD`) within `period`, by day ascending. */
  dailyUsage(accountId: string, period: string): Promise<{ day: string; count: number }[]>;
  /**
   * Start-up: reservations that no live generation holds go back. SQLite (one process) zeroes
   * them all; a shared database must not touch reservations of other live instances.
   */
  clearStaleReservations(): Promise<void>;
  /**
   * Gives back the units reserved through this store that no request holds any more (a release
   * that failed, a reservation whose statement committed but reported an error): for each month's
   * counters this instance reserved on, whatever exceeds `heldBy(accountId, period)` goes back.
   * `heldBy` is read after the counters are locked, so a reservation counted by the caller before
   * its statement was sent is never taken for lost. SQLite counts every reservation of the
   * database (the caller must be its only reserving process); PostgreSQL only this instance's.
   * Returns how many units came back.
   */
  reclaimReservations(heldBy: (accountId: string, period: string) => number): Promise<number>;

  /* monthly reset */
  /** Accounts created before `createdBefore` whose `period` has no `resetEmittedAt` yet, up to `limit`. */
  accountsOwedReset(input: { period: string; createdBefore: number; limit: number }): Promise<AccountRecord[]>;
  /**
   * Claims the month's reset for the account with a conditional update of `resetEmittedAt`
   * (creating the month's counters when missing) and, only if this call claimed it, records
   * `decide(previous month's used)` in the same transaction. Exactly once per account and month,
   * across restarts and across instances. True when this call emitted it.
   */
  emitMonthlyReset(input: { accountId: string; period: string; previousPeriod: string; now: number; decide: (previousUsed: number) => EventDraft }): Promise<boolean>;

  /* events and jobs */
  /**
   * Records events outside any other change (their fan-out included), in one transaction.
   * Here and inside the metering writes, an event is stored only when at least one enabled
   * webhook of the account takes its type: nothing reads an event except its deliveries, and
   * storing every `image.generated` made the events table the largest part of counting an image
   * (three more b-tree pages in each commit) and grow by one row per image. Its email alert, if
   * any, is raised either way. The returned records carry ids even when not stored.
   */
  recordEvents(accountId: string, events: EventDraft[], now: number): Promise<EventRecord[]>;
  getEvent(id: string): Promise<EventRecord | undefined>;
  /** Inserts a pending job; returns its id. */
  enqueueJob(job: NewJob): Promise<string>;
  /**
   * Tells `listener` when committed jobs may be due now, so that the job worker looks at once
   * rather than at its next tick: after any write of this store that queued jobs (deliveries of
   * an event, an email alert, an enqueued job), and with PostgreSQL also after another
   * instance's. A change that queued none (most counted images) tells nobody.
   */
  onJobsAvailable(listener: () => void): () => void;
  /**
   * Claims due jobs of `kinds`, oldest `runAt` first (then insertion order), at most
   * `laneRoom(lane)` per lane, up to `limit`; each claimed job's attempts + 1 and lease set.
   * Concurrent claimers never get the same job while its lease runs (PostgreSQL: FOR UPDATE
   * SKIP LOCKED).
   */
  claimJobs(request: ClaimRequest): Promise<ClaimResult>;
  /** See JobSettlement. */
  settleJob(settlement: JobSettlement): Promise<SettleResult>;
  /**
   * Start-up of the only worker: leases of pending jobs are cleared so they run again at once;
   * returns how many. With several instances on one database, leave live leases alone (they
   * expire on their own) and return 0.
   */
  releaseLeases(): Promise<number>;
  /** Pending jobs per kind (kinds without any are absent). */
  pendingJobsByKind(): Promise<Record<string, number>>;
  /** Deletes succeeded/failed/canceled jobs that finished before `finishedBefore` (clock time). */
  pruneFinishedJobs(finishedBefore: number): Promise<number>;
  getJob(id: string): Promise<JobRecord | undefined>;
  /** Jobs with this status, oldest first; for operators and tests. */
  listJobs(filter: { status: JobStatus }): Promise<JobRecord[]>;

  /* webhooks */
  /** Inserts the webhook unless the account already has `maxPerAccount` (checked in the same transaction). */
  createWebhook(webhook: WebhookRecord, maxPerAccount: number): Promise<WebhookRecord | "limit_reached">;
  /** See WebhookChanges; undefined when the account has no such webhook. */
  updateWebhook(accountId: string, id: string, changes: WebhookChanges): Promise<WebhookRecord | undefined>;
  /** Deletes it with its jobs (pending ones included) and its log; false when the account has no such webhook. */
  deleteWebhook(accountId: string, id: string): Promise<boolean>;
  /** Scoped to the account: another account's webhook is undefined. */
  getWebhook(accountId: string, id: string): Promise<WebhookRecord | undefined>;
  /** By id alone (the delivery job). */
  getWebhookById(id: string): Promise<WebhookRecord | undefined>;
  /** The account's webhooks in creation order; `enabledOnly` for the test send. */
  listWebhooks(accountId: string, options?: { enabledOnly?: boolean }): Promise<WebhookRecord[]>;
  /**
   * Logs an attempt that ran outside the job table (a test send). False, and nothing written,
   * when the webhook was deleted meanwhile — never a constraint error.
   */
  recordDeliveryAttempt(attempt: DeliveryAttemptRecord): Promise<boolean>;
  /** The webhook's newest attempts first, at most `limit`. The store keeps at least the newest 100 per webhook and trims older ones now and then. */
  listDeliveryAttempts(webhookId: string, limit: number): Promise<DeliveryAttemptRecord[]>;

  /* signing keys (public image URLs) */
  /** Inserts the key unless the account already has `maxPerAccount` (checked in the same transaction). */
  createSigningKey(key: SigningKeyRecord, maxPerAccount: number): Promise<SigningKeyRecord | "limit_reached">;
  /** The account's keys, oldest first. */
  listSigningKeys(accountId: string): Promise<SigningKeyRecord[]>;
  /** False when the account has no such key (another account's included). Its URLs stop at once. */
  deleteSigningKey(accountId: string, id: string): Promise<boolean>;
  /** The key with its account, by id alone (the public URL). Must see a deletion at once (no cache). */
  findSigningKey(id: string): Promise<SigningKeyOwner | undefined>;
  /** Sets `lastUsedAt` (no-op when the key is gone). */
  touchSigningKey(id: string, now: number): Promise<void>;

  /* email alerts */
  getEmailAlert(id: string): Promise<EmailAlertRecord | undefined>;
  /** Newest first. */
  recentEmailAlerts(accountId: string, limit: number): Promise<EmailAlertRecord[]>;

  /* dashboard sessions */
  /**
   * Deletes sessions expired at `now`, inserts this one, then ends the account's oldest sessions
   * beyond `maxPerAccount` (this one included in the count), in one transaction.
   */
  createSession(session: SessionRecord, now: number, maxPerAccount: number): Promise<void>;
  /** Moves a live session's expiry (the idle timeout slides with use); nothing when it is gone. */
  touchSession(tokenHash: string, expiresAt: number): Promise<void>;
  /** The session with its account and key prefix, only while its key is unrevoked (expiry is the caller's check). */
  findSession(tokenHash: string): Promise<{ session: SessionRecord; account: AccountRecord; keyPrefix: string } | undefined>;
  deleteSession(tokenHash: string): Promise<void>;
  /** For operators and tests. */
  listSessions(accountId: string): Promise<SessionRecord[]>;

  /* operations */
  /**
   * Readiness: a real write (not only a read) within a short bound, so a full disk or a held
   * lock reports unready. Throws StoreUnavailableError when it fails.
   */
  probe(): Promise<void>;
  /** Closes connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
