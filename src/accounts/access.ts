/**
 * Whether an account may use the service right now (its subscription is active). Shared by the API key
 * gate and the dashboard, so both refuse with the same codes and words.
 */
import type { AccountRecord } from "../store/types.ts";
import { ApiError } from "../errors.ts";

export function subscriptionBlock(account: Pick<AccountRecord, "status">): ApiError | undefined {
  if (account.status === "canceled") return new ApiError("SUBSCRIPTION_CANCELED", "The subscription of this account is inactive.");
  if (account.status === "past_due") return new ApiError("PAYMENT_PAST_DUE", "The last payment of this account failed. Update the payment method to continue.");
  return undefined;
}
