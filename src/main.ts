#!/usr/bin/env bun
/** Entry point: parses argv and dispatches to serve | render | accounts | keys | migrate. */
import { parseArgs } from "node:util";
import { ACCOUNTS_HELP, runAccounts, runKeys } from "./cli/accounts.ts";
import { UsageError } from "./cli/output.ts";
import { ConfigError, loadConfig, type ConfigOverrides } from "./config.ts";
import { ApiError } from "./errors.ts";
import { VERSION } from "./http/app.ts";
import { createLogger } from "./logger.ts";
import { startService } from "./serve.ts";
import { createServices } from "./services.ts";

const HELP = `ogsmith ${VERSION}: Open Graph images as a service.

Usage:
  ogsmith [serve] [--port N] [--host H] [--db PATH]   run the API, dashboard and worker
  ogsmith render --json '<body>' -o out.png            render one image (no server, no quota)
  ogsmith render --batch items.json --out-dir DIR      render many
  ogsmith sign --key-id sk_… --secret ogsk_… --json '<body>'   print a signed image URL
  ogsmith accounts create|update|list|show …           manage accounts (see: ogsmith accounts --help)
  ogsmith keys replace ACCOUNT_ID                      replace an account's API key
  ogsmith migrate                                      apply the store's migrations and exit

Configuration is read from the environment (PORT, HOST, OG_DB_PATH, …; see the README).`;

/** Global flags that override the environment, accepted before or after the sub-command. */
function splitGlobalFlags(argv: string[]): { overrides: ConfigOverrides; rest: string[] } {
  const overrides: ConfigOverrides = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag === "--port" || flag === "--host" || flag === "--db") {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      if (flag === "--port") {
        if (!/^\d+$/.test(value) || Number(value) > 65535) throw new UsageError("--port must be a number from 0 to 65535");
        overrides.port = Number(value);
      } else if (flag === "--host") overrides.host = value;
      else overrides.dbPath = value;
    } else rest.push(arg);
  }
  return { overrides, rest };
}

async function main(argv: string[]): Promise<number> {
  const { overrides, rest } = splitGlobalFlags(argv);
  const [command = "serve", ...args] = rest;
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(HELP);
    return 0;
  }
  if (command === "--version" || command === "-v") {
    console.log(VERSION);
    return 0;
  }
  const config = loadConfig(process.env, overrides);

  switch (command) {
    case "serve": {
      parseArgs({ args, options: {} });
      const service = await startService(config);
      const shutdown = async (signal: string) => {
        service.services.logger.info("shutting down", { signal });
        await service.stop();
        process.exit(0);
      };
      process.once("SIGTERM", () => void shutdown("SIGTERM"));
      process.once("SIGINT", () => void shutdown("SIGINT"));
      // Announced only once the signal handlers are in place, so "listening" means "stoppable".
      service.services.logger.info("listening", { url: service.url, test_clock: config.testClock });
      return -1; // keep running
    }
    case "migrate": {
      // Applies the store's migrations and exits: createStore migrates (under an advisory lock on PostgreSQL).
      parseArgs({ args, options: {} });
      const { createStore } = await import("./store/index.ts");
      const store = await createStore(config);
      await store.close();
      console.log(`ogsmith: migrations applied (${store.kind})`);
      return 0;
    }
    case "render": {
      const { runRender } = await import("./cli/render.ts");
      return runRender(config, args);
    }
    case "sign": {
      const { runSign } = await import("./cli/sign.ts");
      return runSign(config, args);
    }
    case "accounts":
    case "keys": {
      if (args.includes("--help") || args.length === 0) {
        console.log(ACCOUNTS_HELP);
        return args.length === 0 ? 2 : 0;
      }
      // Operator commands work on the store a server may be using (SQLite: WAL, and waits for a held lock).
      const services = await createServices(config, { logger: createLogger("warn") });
      try {
        await (command === "accounts" ? runAccounts : runKeys)(services, args);
      } finally {
        await services.close();
      }
      return 0;
    }
    default:
      throw new UsageError(`Unknown command "${command}".\n\n${HELP}`);
  }
}

main(Bun.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error) => {
    // A flag node:util's parseArgs does not know (or one missing its value) is a usage error too.
    const badFlag = error && typeof error === "object" && "code" in error && String((error as any).code).startsWith("ERR_PARSE_ARGS");
    if (error instanceof ConfigError) console.error(`ogsmith: configuration error: ${error.message}`);
    else if (error instanceof UsageError) console.error(error.message);
    else if (error instanceof ApiError) {
      console.error(`ogsmith: ${error.message}`);
      for (const d of error.details ?? []) console.error(`  ${d.field}: ${d.message}`);
    } else if (badFlag) {
      console.error(`ogsmith: ${(error as Error).message}`);
    } else console.error(`ogsmith: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(error instanceof UsageError || error instanceof ConfigError || badFlag ? 2 : 1);
  },
);
