/** The plans, plus `custom` (quota and rate set per account by the operator). */
export const PLAN_IDS = ["free", "starter", "pro", "agency", "publishing", "custom"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface Plan {
  id: PlanId;
  /** Monthly images; null for `custom` (set per account). */
  monthlyQuota: number | null;
  requestsPerSecond: number | null;
}

export const PLANS: Record<PlanId, Plan> = {
  free: { id: "free", monthlyQuota: 25, requestsPerSecond: 1 },
  starter: { id: "starter", monthlyQuota: 500, requestsPerSecond: 5 },
  pro: { id: "pro", monthlyQuota: 2000, requestsPerSecond: 10 },
  agency: { id: "agency", monthlyQuota: 10000, requestsPerSecond: 25 },
  publishing: { id: "publishing", monthlyQuota: 50000, requestsPerSecond: 50 },
  custom: { id: "custom", monthlyQuota: null, requestsPerSecond: null },
};

export const isPlanId = (value: string): value is PlanId => (PLAN_IDS as readonly string[]).includes(value);

export const ACCOUNT_STATUSES = ["active", "canceled", "past_due"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];
export const isAccountStatus = (value: string): value is AccountStatus => (ACCOUNT_STATUSES as readonly string[]).includes(value);

/** Limits that apply to an account: the plan's, or the operator's numbers for `custom`. */
export interface Limits {
  monthlyQuota: number;
  requestsPerSecond: number;
}

export function limitsOf(account: { plan: string; customQuota: number | null; customRequestsPerSecond: number | null }): Limits {
  const plan = PLANS[account.plan as PlanId] ?? PLANS.free;
  return {
    monthlyQuota: account.customQuota ?? plan.monthlyQuota ?? 0,
    requestsPerSecond: account.customRequestsPerSecond ?? plan.requestsPerSecond ?? 1,
  };
}
