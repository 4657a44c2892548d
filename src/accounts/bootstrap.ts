/**
 * First start on an empty database: create one free-plan account and hand its key to the person
 * who started the service, once (OG_BOOTSTRAP). The key is printed to the terminal,
 * never written to the JSON log.
 */
import type { AccountService } from "./accounts.ts";
import { PLANS } from "./plans.ts";

export async function bootstrapFirstAccount(
  accounts: AccountService,
  print: (text: string) => void,
  /** How the operator runs this program (`ogsmith`, `./dist/ogsmith`, `bun run ogsmith`), for the hint. */
  command = "ogsmith",
): Promise<{ accountId: string; apiKey: string } | undefined> {
  if ((await accounts.count()) > 0) return undefined;
  const { account, apiKey } = await accounts.create({ email: "owner@ogsmith.local", plan: "free" });
  print(
    [
      "",
      "  ogsmith: created the first account (free plan) on this empty database.",
      `  Account: ${account.id}`,
      `  API key: ${apiKey}`,
      "  This key is shown once and stored only as a hash. Keep it somewhere safe.",
      `  Set the alert address with: ${command} accounts update ${account.id} --email you@example.com`,
      // Free on purpose (a key from a forgotten instance grants little); lifting it is one command.
      `  Raise its plan (free: ${PLANS.free.monthlyQuota} images a month, ${PLANS.free.requestsPerSecond} request a second) with: ${command} accounts update ${account.id} --plan pro`,
      "",
    ].join("\n"),
  );
  return { accountId: account.id, apiKey };
}
