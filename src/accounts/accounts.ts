/**
 * Accounts and their keys: the operations shared by the operator CLI, the admin API and the
 * bootstrap on first start. Each returns plain records; none of them knows about HTTP.
 */
import type { Clock } from "../clock.ts";
import { ApiError, validationError, type FieldProblem } from "../errors.ts";
import { newId } from "../ids.ts";
import type { AccountRecord, ApiKeyRecord, KeyOwner, Store } from "../store/types.ts";
import { generateApiKey, hashApiKey, keyPrefix } from "./keys.ts";
import { ACCOUNT_STATUSES, PLAN_IDS, isAccountStatus, isPlanId, limitsOf, type AccountStatus, type PlanId } from "./plans.ts";

export interface AccountInput {
  email?: string;
  plan?: string;
  status?: string;
  quota?: number | null;
  requestsPerSecond?: number | null;
}

export interface AccountView {
  id: string;
  email: string;
  plan: PlanId;
  status: AccountStatus;
  quota: number;
  requests_per_second: number;
  key_prefix: string | null;
  created_at: string;
  updated_at: string;
}

import { EMAIL_PATTERN as EMAIL, MAX_EMAIL_LENGTH, MAX_QUOTA, MAX_RPS } from "./rules.ts";

/** Validates a create or update; on update, fields absent from `input` keep the account's values. */
function checkAccountInput(input: AccountInput, current: AccountRecord | undefined): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!current || input.email !== undefined) {
    if (typeof input.email !== "string" || !EMAIL.test(input.email) || input.email.length > MAX_EMAIL_LENGTH) {
      problems.push({ field: "email", message: "must be an email address" });
    }
  }
  if (!current || input.plan !== undefined) {
    if (typeof input.plan !== "string" || !isPlanId(input.plan)) {
      problems.push({ field: "plan", message: `must be one of ${PLAN_IDS.join(", ")}` });
    }
  }
  if (input.status !== undefined && !isAccountStatus(input.status)) {
    problems.push({ field: "status", message: `must be one of ${ACCOUNT_STATUSES.join(", ")}` });
  }
  const plan = input.plan ?? current?.plan;
  const checkLimit = (field: "quota" | "requests_per_second", value: number | null | undefined, max: number, existing: number | null | undefined) => {
    if (plan === "custom") {
      const effective = value === undefined ? existing : value;
      if (effective === undefined || effective === null) problems.push({ field, message: "is required for the custom plan" });
      else if (!Number.isInteger(effective) || effective < 1 || effective > max) problems.push({ field, message: `must be a whole number from 1 to ${max}` });
    } else if (value !== undefined && value !== null) {
      problems.push({ field, message: "can only be set for the custom plan" });
    }
  };
  checkLimit("quota", input.quota, MAX_QUOTA, current?.customQuota);
  checkLimit("requests_per_second", input.requestsPerSecond, MAX_RPS, current?.customRequestsPerSecond);
  return problems;
}

export function toAccountView(row: AccountRecord, prefix: string | null): AccountView {
  const limits = limitsOf(row);
  return {
    id: row.id,
    email: row.email,
    plan: row.plan as PlanId,
    status: row.status as AccountStatus,
    quota: limits.monthlyQuota,
    requests_per_second: limits.requestsPerSecond,
    key_prefix: prefix,
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}

function newKeyRecord(accountId: string, apiKey: string, now: number): ApiKeyRecord {
  return { id: newId("key"), accountId, keyHash: hashApiKey(apiKey), keyPrefix: keyPrefix(apiKey), createdAt: now, revokedAt: null };
}

/**
 * The API gate's key lookups kept per instance (src/metering/key-cache.ts, with Redis): `D` is
 * the rate decision its Redis round trip took for the request.
 */
export interface KeyCachePort<D> {
  admit(keyHash: string): Promise<(KeyOwner & { decision?: D }) | undefined>;
  /** Runs a change of the account's keys or limits so that every instance's cache sees it at once. */
  changing<T>(accountId: string, change: () => Promise<T>): Promise<T>;
}

export class AccountService<D = unknown> {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** With several instances on Redis: the gate's key lookups, validated by the rate limit's round trip. */
    private readonly keyCache?: KeyCachePort<D>,
    /** Without the key cache: a check before each change that refuses it where caches elsewhere would miss it. */
    private readonly beforeUnannouncedChange?: () => Promise<void>,
  ) {}

  /** Creates an account and its first key; the key is returned once and never stored. */
  async create(input: AccountInput): Promise<{ account: AccountView; apiKey: string }> {
    const problems = checkAccountInput(input, undefined);
    if (problems.length) throw validationError(problems);
    const now = this.clock.now();
    const apiKey = generateApiKey();
    const account: AccountRecord = {
      id: newId("acc"),
      email: input.email!,
      plan: input.plan!,
      status: input.status ?? "active",
      customQuota: input.plan === "custom" ? input.quota! : null,
      customRequestsPerSecond: input.plan === "custom" ? input.requestsPerSecond! : null,
      createdAt: now,
      updatedAt: now,
    };
    const key = newKeyRecord(account.id, apiKey, now);
    await this.store.createAccount(account, key);
    return { account: toAccountView(account, key.keyPrefix), apiKey };
  }

  async update(id: string, input: AccountInput): Promise<AccountView> {
    const current = await this.row(id);
    const problems = checkAccountInput(input, current);
    if (problems.length) throw validationError(problems);
    const plan = input.plan ?? current.plan;
    const updated = await this.changing(id, () =>
      this.store.updateAccount(id, {
        email: input.email ?? current.email,
        plan,
        status: input.status ?? current.status,
        // Leaving `custom` clears the per-account numbers so the new plan's limits apply.
        customQuota: plan === "custom" ? (input.quota ?? current.customQuota) : null,
        customRequestsPerSecond: plan === "custom" ? (input.requestsPerSecond ?? current.customRequestsPerSecond) : null,
        updatedAt: this.clock.now(),
      }),
    );
    if (!updated) throw notFound(id);
    return toAccountView(updated, await this.store.activeKeyPrefix(id));
  }

  /** Revokes every active key of the account and issues a new one, atomically: the old key stops at once. */
  async replaceKey(id: string): Promise<string> {
    const apiKey = generateApiKey();
    if (!(await this.changing(id, () => this.store.replaceKey(id, newKeyRecord(id, apiKey, this.clock.now()))))) throw notFound(id);
    return apiKey;
  }

  async show(id: string): Promise<AccountView> {
    const row = await this.row(id);
    return toAccountView(row, await this.store.activeKeyPrefix(id));
  }

  async list(): Promise<AccountView[]> {
    return (await this.store.listAccounts()).map(({ account, keyPrefix }) => toAccountView(account, keyPrefix));
  }

  count(): Promise<number> {
    return this.store.countAccounts();
  }

  /** The account behind a presented key, or undefined when the key is unknown or revoked. */
  findByKey(apiKey: string): Promise<KeyOwner | undefined> {
    return this.store.findAccountByKeyHash(hashApiKey(apiKey));
  }

  /**
   * The API gate's lookup: the key's owner and, with the key cache, this request's rate decision
   * (taken by the same Redis round trip that validated the cached owner). Undefined when the key
   * is unknown or revoked.
   */
  admitKey(apiKey: string): Promise<(KeyOwner & { decision?: D }) | undefined> {
    return this.keyCache ? this.keyCache.admit(hashApiKey(apiKey)) : this.findByKey(apiKey);
  }

  /** Runs a change of the account's keys or limits so that every instance's key cache sees it at once. */
  private changing<T>(accountId: string, change: () => Promise<T>): Promise<T> {
    if (this.keyCache) return this.keyCache.changing(accountId, change);
    return this.beforeUnannouncedChange ? this.beforeUnannouncedChange().then(change) : change();
  }

  async row(id: string): Promise<AccountRecord> {
    const row = await this.store.getAccount(id);
    if (!row) throw notFound(id);
    return row;
  }
}

const notFound = (id: string) => new ApiError("NOT_FOUND", `No account with id ${id}`);
