/** `ogsmith accounts …` and `ogsmith keys …`: operator commands on the same store as the server. */
import { parseArgs } from "node:util";
import type { Services } from "../services.ts";
import { printRecord, printTable, UsageError } from "./output.ts";

const wholeNumber = (flag: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number`);
  return Number(value);
};

export const ACCOUNTS_HELP = `Usage:
  ogsmith accounts create --email E --plan P [--status active|canceled|past_due] [--quota N --rps N] [--json]
  ogsmith accounts update ID [--plan P] [--status S] [--email E] [--quota N] [--rps N] [--json]
  ogsmith accounts list [--json]
  ogsmith accounts show ID [--json]
  ogsmith keys replace ACCOUNT_ID [--json]

Plans: free, starter, pro, agency, publishing, custom (custom needs --quota and --rps).`;

export async function runAccounts(services: Services, argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      plan: { type: "string" },
      status: { type: "string" },
      quota: { type: "string" },
      rps: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const json = values.json ?? false;
  const input = {
    email: values.email,
    plan: values.plan,
    status: values.status,
    quota: wholeNumber("quota", values.quota),
    requestsPerSecond: wholeNumber("rps", values.rps),
  };
  switch (action) {
    case "create": {
      const { account, apiKey } = await services.accounts.create(input);
      printRecord({ account_id: account.id, api_key: apiKey, plan: account.plan, status: account.status, email: account.email }, json);
      if (!json) console.error("The API key is shown once; only its hash is stored.");
      return;
    }
    case "update": {
      const id = positionals[0];
      if (!id) throw new UsageError("accounts update needs an account id");
      printRecord({ ...(await services.accounts.update(id, input)) }, json);
      return;
    }
    case "show": {
      const id = positionals[0];
      if (!id) throw new UsageError("accounts show needs an account id");
      const account = await services.accounts.row(id);
      const [view, usage, alerts] = await Promise.all([services.accounts.show(id), services.metering.usage(account), services.email.recent(id)]);
      if (json) {
        printRecord({ ...view, usage, email_alerts: alerts }, json);
        return;
      }
      printRecord({ ...view, usage }, json);
      console.log("");
      if (alerts.length === 0) console.log("Email alerts: none");
      else {
        console.log(`Email alerts (last ${alerts.length}, newest first):`);
        printTable(alerts as unknown as Record<string, unknown>[], ["created_at", "kind", "state", "attempts", "last_error"]);
      }
      return;
    }
    case "list": {
      const rows = await services.accounts.list();
      if (json) console.log(JSON.stringify(rows, null, 2));
      else printTable(rows as unknown as Record<string, unknown>[], ["id", "email", "plan", "status", "quota", "requests_per_second", "key_prefix"]);
      return;
    }
    default:
      throw new UsageError(ACCOUNTS_HELP);
  }
}

export async function runKeys(services: Services, argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: "boolean", default: false } } });
  if (action !== "replace" || !positionals[0]) throw new UsageError(ACCOUNTS_HELP);
  const apiKey = await services.accounts.replaceKey(positionals[0]);
  printRecord({ account_id: positionals[0], api_key: apiKey }, values.json ?? false);
  if (!values.json) console.error("The old key stopped working. The new key is shown once.");
}
