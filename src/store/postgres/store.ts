/**
 * The PostgreSQL implementation of the Store interface. Every method is one transaction (or one
 * statement); the rules that make several instances exact:
 * - a unit is reserved by ONE conditional upsert whose `WHERE used + reserved < quota` PostgreSQL
 *   re-checks after taking the row lock, so concurrent reservations never exceed the quota; the
 *   same statement records it as the reserving instance's, and a dead instance's units are given
 *   back by a live one (unit_reservations);
 * - confirmations lock the month's row with their UPDATE, so each sees distinct counters and a
 *   threshold event is decided once;
 * - jobs are claimed with `FOR UPDATE SKIP LOCKED` plus a lease (`claimed_until`, real time,
 *   and `claimed_by`, the instance): two instances never claim the same job. Each instance holds
 *   a session-level advisory lock as its heartbeat; PostgreSQL drops it the moment the
 *   instance's connection dies (kill -9, power loss), so leases of an instance without its lock
 *   are released within LIVENESS_CHECK_MS, well before the lease itself would expire;
 * - the monthly reset is claimed by a conditional update of `reset_emitted_at` (once per account
 *   and month cluster-wide);
 * - every transaction that makes a job due sends `NOTIFY ogsmith_jobs` (delivered at commit), so
 *   an event committed on one instance is picked up at once by whichever instance has room;
 * - nothing is cached: keys, subscriptions and webhooks are read on every request.
 */
import { newId } from "../../ids.ts";
import { fanOut, type PlannedAlert, type Subscription } from "../../events/fan-out.ts";
import { type ClaimCandidate, LaneClaim } from "../../events/lane-claim.ts";
import { planSettlement, webhookToRead } from "../../events/settlement.ts";
import { driverErrorCode, StoreUnavailableError } from "../errors.ts";
import type {
  AccountChanges,
  AccountRecord,
  ApiKeyRecord,
  ClaimRequest,
  ClaimResult,
  DeliveryAttemptRecord,
  EmailAlertRecord,
  EventDraft,
  EventRecord,
  JobRecord,
  JobSettlement,
  JobStatus,
  KeyOwner,
  NewJob,
  SessionRecord,
  SettleResult,
  SigningKeyOwner,
  SigningKeyRecord,
  Store,
  UsageCounters,
  UsageDecision,
  WebhookChanges,
  WebhookRecord,
} from "../types.ts";
import type { Sql } from "./connection.ts";
import { PostgresTemplateStore } from "./templates.ts";

const JOBS_CHANNEL = "ogsmith_jobs";
const CLOCK_CHANNEL = "ogsmith_clock";
/** Namespace (first key) of the instances' liveness advisory locks. */
const LIVENESS_NS = 0x6f67;
/** How often a claim also releases the leases of instances that are gone. */
const LIVENESS_CHECK_MS = 2_000;
const TRIM_EVERY = 50;
const LOG_KEEP = 100;
/** Tries of a transaction PostgreSQL aborted to break a deadlock or a serialization conflict. */
const TX_TRIES = 5;

type Tx = Sql; // a transaction handle takes the same tagged-template calls
type Row = Record<string, any>;

/**
 * Statements written as text (`unsafe`) are prepared like the tagged ones: postgres.js prepares
 * each text once per connection, so PostgreSQL parses and plans it once rather than on every
 * call. The texts are this file's constants (values are always bound), so they are few.
 */
const PREPARED = { prepare: true } as const;

const ACCOUNT_COLS = "id, email, plan, status, custom_quota, custom_requests_per_second, created_at, updated_at";
const KEY_COLS = "id, account_id, key_hash, key_prefix, created_at, revoked_at";
const USAGE_COLS = "account_id, period, used, reserved, warned_80_at, warned_90_at, warned_95_at, limit_reached_at, reset_emitted_at";
const WEBHOOK_COLS = "id, account_id, url, events, secret, status, disabled_reason, created_at, updated_at";
const JOB_COLS = "id, kind, lane, account_id, webhook_id, event_id, payload, status, run_at, attempts, claimed_until, last_error, created_at, updated_at, finished_at";
const ATTEMPT_COLS = "id, webhook_id, account_id, job_id, event_id, event_type, attempt, status_code, error, delivered, duration_ms, next_attempt_at, created_at";
const ALERT_COLS = "id, account_id, kind, recipient, subject, facts, state, attempts, last_error, next_attempt_at, dedupe_key, job_id, created_at, updated_at, sent_at";
const SESSION_COLS = "token_hash, id, account_id, key_id, created_at, expires_at";

const prefixed = (cols: string, alias: string) =>
  cols
    .split(", ")
    .map((c) => `${alias}.${c}`)
    .join(", ");

/**
 * A transaction PostgreSQL aborted for another's sake (40P01 deadlock detected, 40001
 * serialization failure): it left nothing behind, and the same transaction run again succeeds.
 */
export function isRetryableConflict(error: unknown): boolean {
  return ["40P01", "40001"].includes(driverErrorCode(error));
}

/** Connection-level faults (server down, restarting, too many clients) are operational; others are bugs. */
export function classifyPostgresError(error: unknown): "unreachable" | undefined {
  const code = driverErrorCode(error);
  if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|CONNECTION_|CONNECT_TIMEOUT)/.test(code)) return "unreachable";
  // 08: connection exception; 57P0x: shutting down / cannot connect now; 53300: too many connections.
  if (/^(08|57P0|53300|53400)/.test(code)) return "unreachable";
  return undefined;
}

const signingKey = (r: Row): SigningKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  secret: r.secret,
  createdAt: Number(r.created_at),
  lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
});

const account = (r: Row): AccountRecord => ({
  id: r.id,
  email: r.email,
  plan: r.plan,
  status: r.status,
  customQuota: r.custom_quota,
  customRequestsPerSecond: r.custom_requests_per_second,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
const apiKey = (r: Row): ApiKeyRecord => ({ id: r.id, accountId: r.account_id, keyHash: r.key_hash, keyPrefix: r.key_prefix, createdAt: r.created_at, revokedAt: r.revoked_at });
const usage = (r: Row): UsageCounters => ({
  accountId: r.account_id,
  period: r.period,
  used: r.used,
  reserved: r.reserved,
  warned80At: r.warned_80_at,
  warned90At: r.warned_90_at,
  warned95At: r.warned_95_at,
  limitReachedAt: r.limit_reached_at,
  resetEmittedAt: r.reset_emitted_at,
});
const webhook = (r: Row): WebhookRecord => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  events: JSON.parse(r.events),
  secret: r.secret,
  status: r.status,
  disabledReason: r.disabled_reason,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
const job = (r: Row): JobRecord => ({
  id: r.id,
  kind: r.kind,
  lane: r.lane,
  accountId: r.account_id,
  webhookId: r.webhook_id,
  eventId: r.event_id,
  payload: r.payload === null ? null : JSON.parse(r.payload),
  status: r.status,
  runAt: r.run_at,
  attempts: r.attempts,
  claimedUntil: r.claimed_until,
  lastError: r.last_error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  finishedAt: r.finished_at,
});
const attempt = (r: Row): DeliveryAttemptRecord => ({
  id: r.id,
  webhookId: r.webhook_id,
  accountId: r.account_id,
  jobId: r.job_id,
  eventId: r.event_id,
  eventType: r.event_type,
  attempt: r.attempt,
  statusCode: r.status_code,
  error: r.error,
  delivered: r.delivered,
  durationMs: r.duration_ms,
  nextAttemptAt: r.next_attempt_at,
  createdAt: r.created_at,
});
const alert = (r: Row): EmailAlertRecord => ({
  id: r.id,
  accountId: r.account_id,
  kind: r.kind,
  recipient: r.recipient,
  subject: r.subject,
  facts: JSON.parse(r.facts),
  state: r.state,
  attempts: r.attempts,
  lastError: r.last_error,
  nextAttemptAt: r.next_attempt_at,
  dedupeKey: r.dedupe_key,
  jobId: r.job_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  sentAt: r.sent_at,
});
const session = (r: Row): SessionRecord => ({ tokenHash: r.token_hash, id: r.id, accountId: r.account_id, keyId: r.key_id, createdAt: r.created_at, expiresAt: r.expires_at });

export class PostgresStore implements Store {
  readonly kind = "postgres" as const;
  private readonly attemptsSinceTrim = new Map<string, number>();
  private readonly jobListeners = new Set<() => void>();
  private unlisten: (() => Promise<void>) | undefined;
  private unlistenClock: (() => Promise<void>) | undefined;
  private closed = false;
  /** This instance's liveness key (the second key of its advisory lock; jobs' `claimed_by`). */
  readonly instanceKey = 1 + Math.floor(Math.random() * 0x7ffffffe);
  private lastLivenessCheck = 0;

  constructor(
    readonly sql: Sql,
    /** A one-connection client that holds this instance's liveness lock. */
    private readonly liveness: Sql,
  ) {
    this.templates = new PostgresTemplateStore({ run: (body) => this.run(body), write: (body) => this.write(body) });
  }

  /** Account templates and their versions. */
  readonly templates: PostgresTemplateStore;

  /** Takes (or, after a reconnect, takes again) this instance's liveness lock. */
  async holdLiveness(): Promise<void> {
    await this.liveness`select pg_advisory_lock(${LIVENESS_NS}, ${this.instanceKey})
      where not exists (select 1 from pg_locks where locktype = 'advisory' and classid = ${LIVENESS_NS} and objid = ${this.instanceKey} and objsubid = 2 and pid = pg_backend_pid())`;
  }

  /** Releases leases held by instances whose liveness lock is gone (they died); returns how many. */
  private async releaseDeadLeases(tx: Tx): Promise<number> {
    const released = await tx`
      update jobs set claimed_until = null, claimed_by = null
      where status = 'pending' and claimed_by is not null and claimed_by <> ${this.instanceKey}
        and not exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.classid = ${LIVENESS_NS}
                          and l.objid = jobs.claimed_by and l.objsubid = 2 and l.granted)`;
    await this.reclaimDeadReservations(tx);
    return released.count;
  }

  /* ───────────── plumbing ───────────── */

  private async run<T>(body: (sql: Sql) => Promise<T>): Promise<T> {
    try {
      return await body(this.sql);
    } catch (error) {
      const fault = classifyPostgresError(error);
      if (fault === undefined || this.closed) throw error;
      throw new StoreUnavailableError(`PostgreSQL: ${(error as Error).message}`, fault, 1, { cause: error });
    }
  }

  /**
   * Runs `body` in one transaction. Instances lock the same rows from different ends (settling a
   * delivery locks its job, then its webhook; changing a webhook locks it, then its jobs), so
   * PostgreSQL may abort one of two such transactions to break a deadlock: the aborted one is
   * run again, whole, rather than surfacing as a 500.
   */
  private async write<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.run((sql) => sql.begin((tx) => body(tx as unknown as Tx)) as Promise<T>);
      } catch (error) {
        if (tries >= TX_TRIES || !isRetryableConflict(error)) throw error;
        this.conflictRetries++;
        await Bun.sleep(Math.random() * 10 * tries);
      }
    }
  }

  /** Transactions run again after PostgreSQL aborted them for a deadlock or a serialization conflict. */
  conflictRetries = 0;

  /** Subscribes to job notifications from every instance (LISTEN; the driver re-listens after a reconnect). */
  async startListening(): Promise<void> {
    const { unlisten } = await this.sql.listen(JOBS_CHANNEL, () => {
      for (const listener of this.jobListeners) listener();
    });
    this.unlisten = unlisten;
  }

  /** Called when any instance committed jobs that may be due now. */
  onJobsAvailable(listener: () => void): () => void {
    this.jobListeners.add(listener);
    return () => this.jobListeners.delete(listener);
  }

  /** Inside a transaction: tells every instance (at commit) that jobs may be due. */
  private notifyJobs(tx: Tx) {
    return tx`select pg_notify(${JOBS_CHANNEL}, '')`;
  }

  /* ───────────── the test clock, shared by every instance ───────────── */

  /** The shared test clock's time: the first instance to start sets it to `start`. */
  async clusterClock(start: number): Promise<number> {
    return this.run(async (sql) => {
      await sql`insert into cluster_state (key, value) values ('test_clock_now', ${start}) on conflict do nothing`;
      return (await sql`select value from cluster_state where key = 'test_clock_now'`)[0]!.value as number;
    });
  }

  /** Moves the shared test clock by `ms`; every instance hears the new time (NOTIFY at commit). */
  async advanceClusterClock(ms: number): Promise<number> {
    return this.write(async (tx) => {
      const [row] = await tx`update cluster_state set value = value + ${ms} where key = 'test_clock_now' returning value`;
      await tx`select pg_notify(${CLOCK_CHANNEL}, ${String(row!.value)})`;
      return row!.value as number;
    });
  }

  /** Follows clock moves made by any instance. */
  async onClusterClock(listener: (now: number) => void): Promise<void> {
    const { unlisten } = await this.sql.listen(CLOCK_CHANNEL, (payload) => listener(Number(payload)));
    this.unlistenClock = unlisten;
  }

  /* ───────────── accounts and keys ───────────── */

  countAccounts(): Promise<number> {
    return this.run(async (sql) => (await sql`select count(*)::int as n from accounts`)[0]!.n);
  }

  createAccount(a: AccountRecord, key: ApiKeyRecord): Promise<void> {
    return this.write(async (tx) => {
      await tx`insert into accounts (id, email, plan, status, custom_quota, custom_requests_per_second, created_at, updated_at)
        values (${a.id}, ${a.email}, ${a.plan}, ${a.status}, ${a.customQuota}, ${a.customRequestsPerSecond}, ${a.createdAt}, ${a.updatedAt})`;
      await this.insertKey(tx, key);
    });
  }

  private insertKey(tx: Tx, k: ApiKeyRecord) {
    return tx`insert into api_keys (id, account_id, key_hash, key_prefix, created_at, revoked_at)
      values (${k.id}, ${k.accountId}, ${k.keyHash}, ${k.keyPrefix}, ${k.createdAt}, ${k.revokedAt})`;
  }

  getAccount(id: string): Promise<AccountRecord | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql.unsafe(`select ${ACCOUNT_COLS} from accounts where id = $1`, [id], PREPARED);
      return row ? account(row) : undefined;
    });
  }

  listAccounts(): Promise<{ account: AccountRecord; keyPrefix: string | null }[]> {
    return this.run(async (sql) => {
      const rows = await sql.unsafe(
        `select ${prefixed(ACCOUNT_COLS, "a")},
           (select k.key_prefix from api_keys k where k.account_id = a.id and k.revoked_at is null order by k.created_at desc, k.seq desc limit 1) as key_prefix
         from accounts a order by a.created_at, a.seq`, [], PREPARED);
      return rows.map((r) => ({ account: account(r), keyPrefix: r.key_prefix ?? null }));
    });
  }

  updateAccount(id: string, c: AccountChanges): Promise<AccountRecord | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql.unsafe(
        `update accounts set email = $2, plan = $3, status = $4, custom_quota = $5, custom_requests_per_second = $6, updated_at = $7 where id = $1 returning ${ACCOUNT_COLS}`,
        [id, c.email, c.plan, c.status, c.customQuota, c.customRequestsPerSecond, c.updatedAt], PREPARED);
      return row ? account(row) : undefined;
    });
  }

  activeKeyPrefix(accountId: string): Promise<string | null> {
    return this.run(async (sql) => {
      const [row] = await sql`select key_prefix from api_keys where account_id = ${accountId} and revoked_at is null order by created_at desc, seq desc limit 1`;
      return row?.key_prefix ?? null;
    });
  }

  replaceKey(accountId: string, key: ApiKeyRecord): Promise<boolean> {
    return this.write(async (tx) => {
      // Locks the account row: two replacements of one account run one after the other.
      const [found] = await tx`select id from accounts where id = ${accountId} for update`;
      if (!found) return false;
      await tx`update api_keys set revoked_at = ${key.createdAt} where account_id = ${accountId} and revoked_at is null`;
      await this.insertKey(tx, key);
      return true;
    });
  }

  findAccountByKeyHash(keyHash: string): Promise<KeyOwner | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql.unsafe(
        `select ${prefixed(ACCOUNT_COLS, "a")}, k.id as key_id, k.key_prefix from api_keys k join accounts a on a.id = k.account_id where k.key_hash = $1 and k.revoked_at is null`,
        [keyHash], PREPARED);
      return row ? { account: account(row), keyId: row.key_id, keyPrefix: row.key_prefix } : undefined;
    });
  }

  listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
    return this.run(async (sql) => (await sql.unsafe(`select ${KEY_COLS} from api_keys where account_id = $1 order by created_at, seq`, [accountId], PREPARED)).map(apiKey));
  }

  /* ───────────── metering ───────────── */

  reserveUnit(input: { accountId: string; period: string; quota: number }): Promise<boolean> {
    // ONE statement: create the month's row with this reservation, or take one more unit only
    // while used + reserved < quota. On conflict PostgreSQL locks the row and evaluates the
    // WHERE on its latest version, so concurrent reservations from every instance are exact.
    // The same statement records the unit as this instance's (unit_reservations), so a live
    // instance can give it back if this one dies with the render in flight.
    return this.run(async (sql) => {
      const rows = await sql`
        with reserved as (
          insert into usage_periods (account_id, period, reserved)
          select ${input.accountId}, ${input.period}, 1 where ${input.quota}::int > 0
          on conflict (account_id, period) do update set reserved = usage_periods.reserved + 1
            where usage_periods.used + usage_periods.reserved < ${input.quota}::int
          returning account_id, period)
        insert into unit_reservations (instance_key, account_id, period, count)
        select ${this.instanceKey}, account_id, period, 1 from reserved
        on conflict (instance_key, account_id, period) do update set count = unit_reservations.count + 1
        returning 1`;
      return rows.length > 0;
    });
  }

  releaseUnit(input: { accountId: string; period: string }): Promise<void> {
    return this.write(async (tx) => {
      await this.giveBackReservation(tx, input.accountId, input.period);
    });
  }

  /**
   * Inside a transaction: gives one of this instance's reserved units back. Only a unit this
   * instance still holds is taken off `reserved` (one already reclaimed after this instance was
   * taken for dead is not given back twice). Returns whether it held one.
   */
  private async giveBackReservation(tx: Tx, accountId: string, period: string): Promise<boolean> {
    // Locks in the order reserveUnit takes them (the month's row, then the reservation row),
    // so a give-back and a reservation never wait on each other in a cycle.
    await this.lockUsageRow(tx, accountId, period);
    const held = await tx`update unit_reservations set count = count - 1
      where instance_key = ${this.instanceKey} and account_id = ${accountId} and period = ${period} and count > 0 returning 1`;
    if (held.length === 0) return false;
    await tx`update usage_periods set reserved = greatest(reserved - 1, 0) where account_id = ${accountId} and period = ${period}`;
    return true;
  }

  /** Inside a transaction: locks the month's usage row until commit. */
  private async lockUsageRow(tx: Tx, accountId: string, period: string): Promise<void> {
    await tx`select 1 from usage_periods where account_id = ${accountId} and period = ${period} for update`;
  }

  /**
   * Inside a transaction: the units reserved by instances whose liveness lock is gone (killed
   * with renders in flight) go back to their accounts. Returns how many units came back.
   */
  private async reclaimDeadReservations(tx: Tx): Promise<number> {
    const rows = await tx`
      with dead as (
        delete from unit_reservations r
        where r.instance_key <> ${this.instanceKey}
          and not exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.classid = ${LIVENESS_NS}
                            and l.objid = r.instance_key and l.objsubid = 2 and l.granted)
        returning account_id, period, count),
      totals as (select account_id, period, sum(count)::int as n from dead group by account_id, period)
      update usage_periods u set reserved = greatest(u.reserved - t.n, 0)
      from totals t where u.account_id = t.account_id and u.period = t.period
      returning t.n`;
    return rows.reduce((sum, row) => sum + Number(row.n), 0);
  }

  confirmUnit(input: { accountId: string; period: string; day: string; now: number; decide: (after: UsageCounters) => UsageDecision }): Promise<UsageCounters> {
    return this.write((tx) => this.confirmInTx(tx, input));
  }

  confirmImageUnit(input: { accountId: string; period: string; day: string; now: number; contentAddress: string; decide: (after: UsageCounters) => UsageDecision }): Promise<UsageCounters | undefined> {
    const { accountId, period, contentAddress, now } = input;
    return this.write(async (tx) => {
      // The primary key decides across instances: a concurrent insert of the same row waits for
      // the other transaction and then finds the conflict.
      const inserted = await tx`insert into counted_images (account_id, period, content_address, created_at)
        values (${accountId}, ${period}, ${contentAddress}, ${now}) on conflict do nothing returning 1`;
      if (inserted.length === 0) {
        await this.giveBackReservation(tx, accountId, period);
        return undefined;
      }
      return this.confirmInTx(tx, input);
    });
  }

  isImageCounted(input: { accountId: string; period: string; contentAddress: string }): Promise<boolean> {
    return this.run(async (sql) => (await sql`select 1 from counted_images where account_id = ${input.accountId} and period = ${input.period} and content_address = ${input.contentAddress}`).length > 0);
  }

  countUnit(input: { accountId: string; period: string; quota: number; day: string; now: number; decide: (after: UsageCounters) => UsageDecision }): Promise<UsageCounters | undefined> {
    return this.write(async (tx) => {
      // As reserveUnit's one conditional statement, but taking the unit straight into `used`;
      // the row lock it takes is held until commit, so concurrent counts see distinct counters.
      const [row] = await tx.unsafe(
        `insert into usage_periods (account_id, period, used) select $1, $2, 1 where $3::int > 0
         on conflict (account_id, period) do update set used = usage_periods.used + 1
           where usage_periods.used + usage_periods.reserved < $3::int
         returning ${USAGE_COLS}`,
        [input.accountId, input.period, input.quota], PREPARED);
      return row ? this.afterIncrement(tx, row, input) : undefined;
    });
  }

  /** Inside the caller's transaction: see `confirmUnit`. */
  private async confirmInTx(tx: Tx, input: { accountId: string; period: string; day: string; now: number; decide: (after: UsageCounters) => UsageDecision }): Promise<UsageCounters> {
    const { accountId, period } = input;
    await tx`insert into usage_periods (account_id, period) values (${accountId}, ${period}) on conflict do nothing`;
    // The unit moves from this instance's reservations into `used` (if it was reclaimed after
    // this instance was taken for dead, `reserved` already gave it back). The month's row is
    // locked first, in reserveUnit's order.
    await this.lockUsageRow(tx, accountId, period);
    const held = await tx`update unit_reservations set count = count - 1
      where instance_key = ${this.instanceKey} and account_id = ${accountId} and period = ${period} and count > 0 returning 1`;
    // The UPDATE holds the row lock until commit: concurrent confirmations see distinct counters.
    const [row] = await tx.unsafe(
      `update usage_periods set used = used + 1, reserved = greatest(reserved - $3, 0) where account_id = $1 and period = $2 returning ${USAGE_COLS}`,
      [accountId, period, held.length > 0 ? 1 : 0], PREPARED);
    return this.afterIncrement(tx, row!, input);
  }

  /** Inside the caller's transaction, after `used` went up by one: the day's count, the marks and the events. */
  private async afterIncrement(tx: Tx, row: Record<string, unknown>, input: { accountId: string; period: string; day: string; now: number; decide: (after: UsageCounters) => UsageDecision }): Promise<UsageCounters> {
    const { accountId, period, now } = input;
    await tx`insert into usage_days (account_id, day, count) values (${accountId}, ${input.day}, 1)
      on conflict (account_id, day) do update set count = usage_days.count + 1`;
    const after = usage(row);
    const decision = input.decide(after);
    const columns: Record<string, string> = { warned80At: "warned_80_at", warned90At: "warned_90_at", warned95At: "warned_95_at", limitReachedAt: "limit_reached_at" };
    if (decision.marks.length > 0) {
      await tx.unsafe(`update usage_periods set ${decision.marks.map((m) => `${columns[m]} = $3`).join(", ")} where account_id = $1 and period = $2`, [accountId, period, now], PREPARED);
    }
    for (const event of decision.events) await this.recordEvent(tx, accountId, event, now);
    return after;
  }

  usage(accountId: string, period: string): Promise<UsageCounters | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql.unsafe(`select ${USAGE_COLS} from usage_periods where account_id = $1 and period = $2`, [accountId, period], PREPARED);
      return row ? usage(row) : undefined;
    });
  }

  dailyUsage(accountId: string, period: string): Promise<{ day: string; count: number }[]> {
    return this.run(async (sql) => {
      const rows = await sql`select day, count from usage_days where account_id = ${accountId} and day like ${period + "-%"} order by day`;
      return rows.map((r) => ({ day: r.day, count: r.count }));
    });
  }

  /**
   * Start-up: units reserved by instances that are gone (a previous run of this one included)
   * go back to their accounts; live instances' reservations are left alone. The same happens
   * whenever dead leases are released (claimJobs' liveness check).
   */
  clearStaleReservations(): Promise<void> {
    return this.write(async (tx) => {
      await this.reclaimDeadReservations(tx);
    });
  }

  reclaimReservations(heldBy: (accountId: string, period: string) => number): Promise<number> {
    return this.write(async (tx) => {
      const mine = await tx`select account_id, period from unit_reservations where instance_key = ${this.instanceKey} and count > 0`;
      let back = 0;
      for (const { account_id: accountId, period } of mine) {
        // reserveUnit's lock order (the month's row, then the reservation row). Once this
        // instance's row is locked, no reservation of ours can commit on it before this
        // transaction does, and each one that did was counted by the caller before it was sent:
        // `heldBy` read now can only be larger than what the row holds, never smaller.
        await this.lockUsageRow(tx, accountId, period);
        const [row] = await tx`select count from unit_reservations
          where instance_key = ${this.instanceKey} and account_id = ${accountId} and period = ${period} for update`;
        const excess = Number(row?.count ?? 0) - heldBy(accountId, period);
        if (excess <= 0) continue;
        await tx`update unit_reservations set count = count - ${excess}
          where instance_key = ${this.instanceKey} and account_id = ${accountId} and period = ${period}`;
        await tx`update usage_periods set reserved = greatest(reserved - ${excess}, 0) where account_id = ${accountId} and period = ${period}`;
        back += excess;
      }
      return back;
    });
  }

  /* ───────────── monthly reset ───────────── */

  accountsOwedReset(input: { period: string; createdBefore: number; limit: number }): Promise<AccountRecord[]> {
    return this.run(async (sql) => {
      const rows = await sql.unsafe(
        `select ${prefixed(ACCOUNT_COLS, "a")} from accounts a left join usage_periods u on u.account_id = a.id and u.period = $1
         where a.created_at < $2 and u.reset_emitted_at is null order by a.seq limit $3`,
        [input.period, input.createdBefore, input.limit], PREPARED);
      return rows.map(account);
    });
  }

  emitMonthlyReset(input: { accountId: string; period: string; previousPeriod: string; now: number; decide: (previousUsed: number) => EventDraft }): Promise<boolean> {
    const { accountId, period, now } = input;
    return this.write(async (tx) => {
      await tx`insert into usage_periods (account_id, period) values (${accountId}, ${period}) on conflict do nothing`;
      const claimed = await tx`update usage_periods set reset_emitted_at = ${now}
        where account_id = ${accountId} and period = ${period} and reset_emitted_at is null returning period`;
      if (claimed.length === 0) return false;
      const [before] = await tx`select used from usage_periods where account_id = ${accountId} and period = ${input.previousPeriod}`;
      await this.recordEvent(tx, accountId, input.decide(before?.used ?? 0), now);
      return true;
    });
  }

  /* ───────────── events (the outbox) ───────────── */

  recordEvents(accountId: string, drafts: EventDraft[], now: number): Promise<EventRecord[]> {
    return this.write(async (tx) => {
      const out: EventRecord[] = [];
      for (const draft of drafts) out.push(await this.recordEvent(tx, accountId, draft, now));
      return out;
    });
  }

  /** Inside the caller's transaction: reads what the fan-out needs and writes the rows it plans (src/events/fan-out.ts). */
  private async recordEvent(tx: Tx, accountId: string, draft: EventDraft, now: number): Promise<EventRecord> {
    const subscriptions = (await tx`select id, events, created_at as "createdAt", seq from webhooks where account_id = ${accountId} and status = 'enabled'`) as unknown as Subscription[];
    const plan = fanOut(accountId, draft, subscriptions, draft.alert ? await this.ownerEmail(tx, accountId) : null, now);
    if (plan.storeEvent) {
      const { event } = plan;
      await tx`insert into events (id, account_id, type, data, created_at) values (${event.id}, ${accountId}, ${event.type}, ${event.data}, ${now})`;
    }
    for (const job of plan.deliveries) await this.insertJob(tx, job);
    const alerted = plan.alert !== undefined && (await this.insertAlert(tx, plan.alert));
    if (plan.deliveries.length > 0 || alerted) await this.notifyJobs(tx);
    return plan.event;
  }

  private async ownerEmail(tx: Tx, accountId: string): Promise<string | null> {
    const [owner] = await tx`select email from accounts where id = ${accountId}`;
    return owner ? (owner.email as string) : null;
  }

  /** True when the alert was new and its email job queued. */
  private async insertAlert(tx: Tx, { row: a, job }: PlannedAlert): Promise<boolean> {
    const inserted = await tx`insert into email_alerts (id, account_id, kind, recipient, subject, facts, dedupe_key, created_at, updated_at)
      values (${a.id}, ${a.accountId}, ${a.kind}, ${a.recipient}, ${a.subject}, ${JSON.stringify(a.facts)}, ${a.dedupeKey}, ${a.createdAt}, ${a.createdAt})
      on conflict do nothing returning id`;
    if (inserted.length === 0) return false; // raised already (same dedupe key)
    await tx`update email_alerts set job_id = ${await this.insertJob(tx, job)} where id = ${a.id}`;
    return true;
  }

  getEvent(id: string): Promise<EventRecord | undefined> {
    return this.run(async (sql) => {
      const [r] = await sql`select id, account_id, type, data, created_at from events where id = ${id}`;
      return r ? { id: r.id, accountId: r.account_id, type: r.type, data: r.data, createdAt: r.created_at } : undefined;
    });
  }

  /* ───────────── jobs ───────────── */

  enqueueJob(j: NewJob): Promise<string> {
    return this.write(async (tx) => {
      const id = await this.insertJob(tx, j);
      await this.notifyJobs(tx);
      return id;
    });
  }

  private async insertJob(tx: Tx, j: NewJob): Promise<string> {
    const id = newId("job");
    await tx`insert into jobs (id, kind, lane, account_id, webhook_id, event_id, payload, status, run_at, attempts, created_at, updated_at)
      values (${id}, ${j.kind}, ${j.lane}, ${j.accountId ?? null}, ${j.webhookId ?? null}, ${j.eventId ?? null},
              ${j.payload === undefined ? null : JSON.stringify(j.payload)}, 'pending', ${j.runAt}, 0, ${j.now}, ${j.now})`;
    return id;
  }

  /**
   * The oldest due jobs in a small window, locked with SKIP LOCKED (another instance claiming at
   * the same moment takes different rows); only when that window is all full lanes is the table
   * searched past them. A lease that expired (its instance died) makes the job due again here.
   */
  claimJobs(request: ClaimRequest): Promise<ClaimResult> {
    const { kinds, limit, laneRoom } = request;
    if (limit <= 0 || kinds.length === 0) return Promise.resolve({ jobs: [], searchedEmpty: false });
    const checkLiveness = request.realNow - this.lastLivenessCheck >= LIVENESS_CHECK_MS;
    if (checkLiveness) this.lastLivenessCheck = request.realNow;
    return this.write(async (tx): Promise<ClaimResult> => {
      if (checkLiveness) {
        await this.holdLiveness().catch(() => {}); // our own lock, again if our connection was replaced
        await this.releaseDeadLeases(tx);
      }
      const lanes = new LaneClaim(limit, laneRoom);
      const due = (excludeLanes: string[]) => tx`
        select id, lane from jobs
        where status = 'pending' and run_at <= ${request.now} and (claimed_until is null or claimed_until < ${request.realNow})
          and kind = any(${kinds}::text[]) ${excludeLanes.length > 0 ? tx`and lane <> all(${excludeLanes}::text[])` : tx``}
        order by run_at, seq limit ${lanes.window} for update skip locked`;
      const first = (await due([])) as unknown as ClaimCandidate[];
      lanes.offer(first);
      let searchedEmpty = false;
      const full = lanes.searchPast(first, request.searchPastFullLanes);
      if (full) searchedEmpty = lanes.offer((await due(full)) as unknown as ClaimCandidate[]) === 0;
      const chosen = lanes.chosen;
      if (chosen.length === 0) return { jobs: [], searchedEmpty };
      const rows = await tx.unsafe(
        `update jobs set claimed_until = $1, claimed_by = $3, attempts = attempts + 1 where id = any($2::text[]) returning ${JOB_COLS}`,
        [request.realNow + request.leaseMs, chosen, this.instanceKey], PREPARED);
      const byId = new Map(rows.map((r) => [r.id as string, job(r)]));
      return { jobs: chosen.map((id) => byId.get(id)!), searchedEmpty };
    });
  }

  settleJob(s: JobSettlement): Promise<SettleResult> {
    return this.write(async (tx): Promise<SettleResult> => {
      const [current] = await tx`select status from jobs where id = ${s.jobId} for update`;
      const status = (current?.status as JobStatus | undefined) ?? null;
      const webhookId = webhookToRead(s, status);
      const [wh] = webhookId ? await tx`select account_id, status from webhooks where id = ${webhookId} for update` : [];
      const webhook = wh ? { accountId: wh.account_id as string, status: wh.status as string, ownerEmail: s.disableWebhook?.alert ? await this.ownerEmail(tx, wh.account_id) : null } : null;
      const plan = planSettlement(s, status, webhook);
      if (plan.job) {
        const j = plan.job;
        await tx`update jobs set status = ${j.status}, run_at = ${j.runAt}, claimed_until = null, claimed_by = null, last_error = ${j.lastError},
          updated_at = ${j.updatedAt}, finished_at = ${j.finishedAt} where id = ${j.id}`;
      }
      if (plan.deliveryAttempt) await this.insertAttempt(tx, plan.deliveryAttempt);
      if (plan.disableWebhook) {
        const d = plan.disableWebhook;
        await tx`update webhooks set status = 'disabled', disabled_reason = ${d.reason}, updated_at = ${d.updatedAt} where id = ${d.webhookId}`;
        await this.cancelPendingJobs(tx, d.webhookId, d.updatedAt);
      }
      if (plan.alert && (await this.insertAlert(tx, plan.alert))) await this.notifyJobs(tx);
      if (plan.emailAlert) {
        const e = plan.emailAlert;
        await tx`update email_alerts set state = ${e.state}, attempts = ${e.attempts}, last_error = ${e.lastError}, next_attempt_at = ${e.nextAttemptAt},
          sent_at = ${e.sentAt}, updated_at = ${e.updatedAt} where id = ${e.alertId}`;
      }
      return plan.result;
    });
  }

  private cancelPendingJobs(tx: Tx, webhookId: string, now: number) {
    return tx`update jobs set status = 'canceled', finished_at = ${now}, updated_at = ${now}, last_error = 'dropped' where webhook_id = ${webhookId} and status = 'pending'`;
  }

  /**
   * Start-up: leases of instances that are gone (a previous run of this one included) are
   * released so their jobs run again at once; live instances' leases are left alone.
   */
  releaseLeases(): Promise<number> {
    return this.write((tx) => this.releaseDeadLeases(tx));
  }

  pendingJobsByKind(): Promise<Record<string, number>> {
    return this.run(async (sql) => {
      const rows = await sql`select kind, count(*)::int as n from jobs where status = 'pending' group by kind`;
      return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
    });
  }

  pruneFinishedJobs(finishedBefore: number): Promise<number> {
    return this.run(async (sql) => (await sql`delete from jobs where status in ('succeeded', 'failed', 'canceled') and finished_at < ${finishedBefore}`).count);
  }

  getJob(id: string): Promise<JobRecord | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql.unsafe(`select ${JOB_COLS} from jobs where id = $1`, [id], PREPARED);
      return row ? job(row) : undefined;
    });
  }

  listJobs(filter: { status: JobStatus }): Promise<JobRecord[]> {
    return this.run(async (sql) => (await sql.unsafe(`select ${JOB_COLS} from jobs where status = $1 order by created_at, seq`, [filter.status], PREPARED)).map(job));
  }

  /* ───────────── webhooks ───────────── */

  /* ───────────── signing keys ───────────── */

  createSigningKey(key: SigningKeyRecord, maxPerAccount: number): Promise<SigningKeyRecord | "limit_reached"> {
    return this.write(async (tx) => {
      // The account row lock serializes creations per account, so the limit holds across instances.
      await tx`select id from accounts where id = ${key.accountId} for update`;
      const [{ n }] = (await tx`select count(*)::int as n from signing_keys where account_id = ${key.accountId}`) as unknown as [{ n: number }];
      if (n >= maxPerAccount) return "limit_reached" as const;
      await tx`insert into signing_keys (id, account_id, secret, created_at, last_used_at) values (${key.id}, ${key.accountId}, ${key.secret}, ${key.createdAt}, ${key.lastUsedAt})`;
      return key;
    });
  }

  listSigningKeys(accountId: string): Promise<SigningKeyRecord[]> {
    return this.run(async (sql) => (await sql`select id, account_id, secret, created_at, last_used_at from signing_keys where account_id = ${accountId} order by created_at, seq`).map(signingKey));
  }

  deleteSigningKey(accountId: string, id: string): Promise<boolean> {
    return this.run(async (sql) => (await sql`delete from signing_keys where id = ${id} and account_id = ${accountId} returning id`).length > 0);
  }

  findSigningKey(id: string): Promise<SigningKeyOwner | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql.unsafe(
        `select ${prefixed(ACCOUNT_COLS, "a")}, k.id as k_id, k.account_id as k_account_id, k.secret as k_secret, k.created_at as k_created_at, k.last_used_at as k_last_used_at
         from signing_keys k join accounts a on a.id = k.account_id where k.id = $1`,
        [id], PREPARED);
      if (!row) return undefined;
      return {
        key: signingKey({ id: row.k_id, account_id: row.k_account_id, secret: row.k_secret, created_at: row.k_created_at, last_used_at: row.k_last_used_at }),
        account: account(row),
      };
    });
  }

  touchSigningKey(id: string, now: number): Promise<void> {
    return this.run(async (sql) => {
      await sql`update signing_keys set last_used_at = ${now} where id = ${id}`;
    });
  }

  createWebhook(w: WebhookRecord, maxPerAccount: number): Promise<WebhookRecord | "limit_reached"> {
    return this.write(async (tx) => {
      // The account row lock serializes creations per account, so the limit holds across instances.
      await tx`select id from accounts where id = ${w.accountId} for update`;
      const [{ n }] = (await tx`select count(*)::int as n from webhooks where account_id = ${w.accountId}`) as unknown as [{ n: number }];
      if (n >= maxPerAccount) return "limit_reached" as const;
      const [row] = await tx.unsafe(
        `insert into webhooks (id, account_id, url, events, secret, status, disabled_reason, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning ${WEBHOOK_COLS}`,
        [w.id, w.accountId, w.url, JSON.stringify(w.events), w.secret, w.status, w.disabledReason, w.createdAt, w.updatedAt], PREPARED);
      return webhook(row!);
    });
  }

  updateWebhook(accountId: string, id: string, c: WebhookChanges): Promise<WebhookRecord | undefined> {
    return this.write(async (tx) => {
      const [current] = await tx.unsafe(`select ${WEBHOOK_COLS} from webhooks where id = $1 and account_id = $2 for update`, [id, accountId], PREPARED);
      if (!current) return undefined;
      let status: string = current.status;
      let reason: string | null = current.disabled_reason;
      if (c.enabled === true && current.status === "disabled") {
        status = "enabled";
        reason = null;
      } else if (c.enabled === false && current.status === "enabled") {
        status = "disabled";
        reason = c.disableReason;
        await this.cancelPendingJobs(tx, id, c.now);
      }
      const [row] = await tx.unsafe(
        `update webhooks set url = $2, events = $3, secret = $4, status = $5, disabled_reason = $6, updated_at = $7 where id = $1 returning ${WEBHOOK_COLS}`,
        [id, c.url, JSON.stringify(c.events), c.secret ?? current.secret, status, reason, c.now], PREPARED);
      return webhook(row!);
    });
  }

  deleteWebhook(accountId: string, id: string): Promise<boolean> {
    // Its jobs and its log go by foreign-key cascade. The jobs are locked first, in the order
    // settling a delivery locks them (job, then webhook): deleting the webhook row first would
    // hold it while waiting for a job that a settlement holds while waiting for the webhook.
    return this.write(async (tx) => {
      await tx`select id from jobs where webhook_id = ${id} order by id for update`;
      const deleted = (await tx`delete from webhooks where id = ${id} and account_id = ${accountId} returning id`).length > 0;
      if (deleted) this.attemptsSinceTrim.delete(id);
      return deleted;
    });
  }

  getWebhook(accountId: string, id: string): Promise<WebhookRecord | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql.unsafe(`select ${WEBHOOK_COLS} from webhooks where id = $1 and account_id = $2`, [id, accountId], PREPARED);
      return row ? webhook(row) : undefined;
    });
  }

  getWebhookById(id: string): Promise<WebhookRecord | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql.unsafe(`select ${WEBHOOK_COLS} from webhooks where id = $1`, [id], PREPARED);
      return row ? webhook(row) : undefined;
    });
  }

  listWebhooks(accountId: string, options: { enabledOnly?: boolean } = {}): Promise<WebhookRecord[]> {
    return this.run(async (sql) =>
      (
        await sql.unsafe(`select ${WEBHOOK_COLS} from webhooks where account_id = $1 ${options.enabledOnly ? "and status = 'enabled'" : ""} order by created_at, seq`, [accountId], PREPARED)
      ).map(webhook),
    );
  }

  recordDeliveryAttempt(a: DeliveryAttemptRecord): Promise<boolean> {
    return this.write((tx) => this.insertAttempt(tx, a));
  }

  private async insertAttempt(tx: Tx, a: DeliveryAttemptRecord): Promise<boolean> {
    const inserted = await tx`
      insert into delivery_attempts (id, webhook_id, account_id, job_id, event_id, event_type, attempt, status_code, error, delivered, duration_ms, next_attempt_at, created_at)
      select ${a.id}, ${a.webhookId}, ${a.accountId}, ${a.jobId}, ${a.eventId}, ${a.eventType}, ${a.attempt}, ${a.statusCode}, ${a.error}, ${a.delivered},
             ${Math.round(a.durationMs)}, ${a.nextAttemptAt}, ${a.createdAt}
      where exists (select 1 from webhooks where id = ${a.webhookId})
      returning id`;
    if (inserted.length === 0) return false;
    const since = (this.attemptsSinceTrim.get(a.webhookId) ?? 0) + 1;
    if (since < TRIM_EVERY) {
      this.attemptsSinceTrim.set(a.webhookId, since);
      return true;
    }
    this.attemptsSinceTrim.set(a.webhookId, 0);
    await tx`delete from delivery_attempts where webhook_id = ${a.webhookId} and seq not in
      (select seq from delivery_attempts where webhook_id = ${a.webhookId} order by created_at desc, seq desc limit ${LOG_KEEP})`;
    return true;
  }

  listDeliveryAttempts(webhookId: string, limit: number): Promise<DeliveryAttemptRecord[]> {
    return this.run(async (sql) =>
      (await sql.unsafe(`select ${ATTEMPT_COLS} from delivery_attempts where webhook_id = $1 order by created_at desc, seq desc limit $2`, [webhookId, limit], PREPARED)).map(attempt),
    );
  }

  /* ───────────── email alerts ───────────── */

  getEmailAlert(id: string): Promise<EmailAlertRecord | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql.unsafe(`select ${ALERT_COLS} from email_alerts where id = $1`, [id], PREPARED);
      return row ? alert(row) : undefined;
    });
  }

  recentEmailAlerts(accountId: string, limit: number): Promise<EmailAlertRecord[]> {
    return this.run(async (sql) =>
      (await sql.unsafe(`select ${ALERT_COLS} from email_alerts where account_id = $1 order by created_at desc, seq desc limit $2`, [accountId, limit], PREPARED)).map(alert),
    );
  }

  /* ───────────── dashboard sessions ───────────── */

  createSession(s: SessionRecord, now: number, maxPerAccount: number): Promise<void> {
    return this.write(async (tx) => {
      // The account row is locked first so that concurrent sign-ins count one another.
      await tx`select 1 from accounts where id = ${s.accountId} for update`;
      await tx`delete from dashboard_sessions where expires_at <= ${now}`;
      await tx`insert into dashboard_sessions (token_hash, id, account_id, key_id, created_at, expires_at)
        values (${s.tokenHash}, ${s.id}, ${s.accountId}, ${s.keyId}, ${s.createdAt}, ${s.expiresAt})`;
      await tx`delete from dashboard_sessions where account_id = ${s.accountId} and token_hash not in
        (select token_hash from dashboard_sessions where account_id = ${s.accountId} order by created_at desc, id desc limit ${maxPerAccount})`;
    });
  }

  touchSession(tokenHash: string, expiresAt: number): Promise<void> {
    return this.run(async (sql) => {
      await sql`update dashboard_sessions set expires_at = ${expiresAt} where token_hash = ${tokenHash}`;
    });
  }

  findSession(tokenHash: string): Promise<{ session: SessionRecord; account: AccountRecord; keyPrefix: string } | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql.unsafe(
        `select ${prefixed(SESSION_COLS, "s")}, ${ACCOUNT_COLS.split(", ")
          .map((c) => `a.${c} as a_${c}`)
          .join(", ")}, k.key_prefix
         from dashboard_sessions s join accounts a on a.id = s.account_id join api_keys k on k.id = s.key_id and k.revoked_at is null
         where s.token_hash = $1`,
        [tokenHash], PREPARED);
      if (!row) return undefined;
      const acc = Object.fromEntries(ACCOUNT_COLS.split(", ").map((c) => [c, row[`a_${c}`]]));
      return { session: session(row), account: account(acc), keyPrefix: row.key_prefix };
    });
  }

  deleteSession(tokenHash: string): Promise<void> {
    return this.run(async (sql) => {
      await sql`delete from dashboard_sessions where token_hash = ${tokenHash}`;
    });
  }

  listSessions(accountId: string): Promise<SessionRecord[]> {
    return this.run(async (sql) => (await sql.unsafe(`select ${SESSION_COLS} from dashboard_sessions where account_id = $1 order by created_at`, [accountId], PREPARED)).map(session));
  }

  /* ───────────── operations ───────────── */

  async probe(): Promise<void> {
    await this.run(async (sql) => {
      await Promise.race([
        sql`insert into store_probe (id, at) values (1, ${Date.now()}) on conflict (id) do update set at = excluded.at`,
        new Promise((_, reject) => setTimeout(() => reject(Object.assign(new Error("probe timed out after 2 s"), { code: "CONNECT_TIMEOUT" })), 2000)),
      ]);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.unlisten?.().catch(() => {});
    await this.unlistenClock?.().catch(() => {});
    await this.sql.end({ timeout: 5 });
    await this.liveness.end({ timeout: 1 });
  }
}
