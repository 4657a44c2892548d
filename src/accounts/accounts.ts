/**
 * Accounts and their keys: the operations shared by the operator CLI, the admin API and the
 * bootstrap on first start. Each returns plain records; none of them knows about HTTP.
 */
import { and, count, desc, eq, isNull } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { accounts, apiKeys, type AccountRow } from "../db/schema/index.ts";
import { ApiError, validationError, type FieldProblem } from "../errors.ts";
import { newId } from "../ids.ts";
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
function checkAccountInput(input: AccountInput, current: AccountRow | undefined): FieldProblem[] {
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

export function toAccountView(row: AccountRow, prefix: string | null): AccountView {
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

export class AccountService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Creates an account and its first key; the key is returned once and never stored. */
  create(input: AccountInput): { account: AccountView; apiKey: string } {
    const problems = checkAccountInput(input, undefined);
    if (problems.length) throw validationError(problems);
    const now = this.clock.now();
    const id = newId("acc");
    const apiKey = generateApiKey();
    this.db.transaction((tx) => {
      tx.insert(accounts)
        .values({
          id,
          email: input.email!,
          plan: input.plan!,
          status: input.status ?? "active",
          customQuota: input.plan === "custom" ? input.quota! : null,
          customRequestsPerSecond: input.plan === "custom" ? input.requestsPerSecond! : null,
          createdAt: now,
          updatedAt: now,
        })
        .run();
      tx.insert(apiKeys).values({ id: newId("key"), accountId: id, keyHash: hashApiKey(apiKey), keyPrefix: keyPrefix(apiKey), createdAt: now }).run();
    });
    return { account: this.show(id), apiKey };
  }

  update(id: string, input: AccountInput): AccountView {
    const current = this.row(id);
    const problems = checkAccountInput(input, current);
    if (problems.length) throw validationError(problems);
    const plan = input.plan ?? current.plan;
    this.db
      .update(accounts)
      .set({
        email: input.email ?? current.email,
        plan,
        status: input.status ?? current.status,
        // Leaving `custom` clears the per-account numbers so the new plan's limits apply.
        customQuota: plan === "custom" ? (input.quota ?? current.customQuota) : null,
        customRequestsPerSecond: plan === "custom" ? (input.requestsPerSecond ?? current.customRequestsPerSecond) : null,
        updatedAt: this.clock.now(),
      })
      .where(eq(accounts.id, id))
      .run();
    return this.show(id);
  }

  /** Revokes every active key of the account and issues a new one, atomically. */
  replaceKey(id: string): string {
    this.row(id);
    const now = this.clock.now();
    const apiKey = generateApiKey();
    this.db.transaction((tx) => {
      tx.update(apiKeys).set({ revokedAt: now }).where(and(eq(apiKeys.accountId, id), isNull(apiKeys.revokedAt))).run();
      tx.insert(apiKeys).values({ id: newId("key"), accountId: id, keyHash: hashApiKey(apiKey), keyPrefix: keyPrefix(apiKey), createdAt: now }).run();
    });
    return apiKey;
  }

  show(id: string): AccountView {
    const row = this.row(id);
    return toAccountView(row, this.activeKeyPrefix(id));
  }

  list(): AccountView[] {
    return this.db
      .select()
      .from(accounts)
      .orderBy(accounts.createdAt)
      .all()
      .map((row) => toAccountView(row, this.activeKeyPrefix(row.id)));
  }

  count(): number {
    return this.db.select({ n: count() }).from(accounts).get()!.n;
  }

  /** The account behind a presented key, or undefined when the key is unknown or revoked. */
  findByKey(apiKey: string): { account: AccountRow; keyId: string; keyPrefix: string } | undefined {
    const found = this.db
      .select({ account: accounts, keyId: apiKeys.id, keyPrefix: apiKeys.keyPrefix })
      .from(apiKeys)
      .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
      .where(and(eq(apiKeys.keyHash, hashApiKey(apiKey)), isNull(apiKeys.revokedAt)))
      .get();
    return found ?? undefined;
  }

  row(id: string): AccountRow {
    const row = this.db.select().from(accounts).where(eq(accounts.id, id)).get();
    if (!row) throw new ApiError("NOT_FOUND", `No account with id ${id}`);
    return row;
  }

  private activeKeyPrefix(id: string): string | null {
    const key = this.db
      .select({ keyPrefix: apiKeys.keyPrefix })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, id), isNull(apiKeys.revokedAt)))
      .orderBy(desc(apiKeys.createdAt))
      .get();
    return key?.keyPrefix ?? null;
  }
}
