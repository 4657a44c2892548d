#!/usr/bin/env bun
/**
 * Entry point: parses argv and dispatches to serve | render | accounts | keys | sign | migrate.
 * Everything heavy (the server, the database, the renderer) is imported only by the command that
 * needs it, so `--version` and `--help` answer at once.
 */
import { parseArgs } from "node:util";
import { ListenError } from "./cli/listen.ts";
import { UsageError } from "./cli/output.ts";
import { ConfigError, loadConfig, type ConfigOverrides } from "./config.ts";
import { ApiError } from "./errors.ts";
import { RENDER_PROCESS_ARG } from "./render/sandbox/protocol.ts";
import { VERSION } from "./version.ts";

const HELP = `ogsmith ${VERSION}: Open Graph images as a service.

Usage:
  ogsmith [serve] [--port N] [--host H] [--db PATH]   run the API, dashboard and worker
  ogsmith render --json '<body>' -o out.png            render one image (no server, no quota)
  ogsmith render --batch items.json --out-dir DIR      render many
  ogsmith sign --key-id sk_… --json '<body>'           print a signed image URL (the secret from
                                                       OG_SIGNING_SECRET or --secret-file; ogsmith sign --help)
  ogsmith accounts create|update|list|show …           manage accounts (see: ogsmith accounts --help)
  ogsmith keys replace ACCOUNT_ID                      replace an account's API key
  ogsmith --version                                    print the version, target and engines
  ogsmith --licenses                                   print the third-party notices (fonts, emoji, libraries)
  ogsmith migrate                                      apply the store's migrations and exit

Configuration is read from the environment (PORT, HOST, OG_DB_PATH, …; see docs/operations.md).`;

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
  // A render process of `ogsmith serve` (not a public command): it lives on its IPC channel.
  if (argv[0] === RENDER_PROCESS_ARG) {
    const { runRenderProcess } = await import("./render/sandbox/process-main.ts");
    runRenderProcess();
    return -1;
  }
  const { overrides, rest } = splitGlobalFlags(argv);
  const [command = "serve", ...args] = rest;
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(HELP);
    return 0;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    const { versionLine } = await import("./cli/version.ts");
    console.log(versionLine());
    return 0;
  }
  if (command === "--licenses" || command === "licenses") {
    const { THIRD_PARTY_NOTICES } = await import("./cli/licenses.ts");
    // Long enough to outgrow a pipe's buffer: exit only once all of it is written.
    await new Promise<void>((done) => process.stdout.write(THIRD_PARTY_NOTICES, () => done()));
    return 0;
  }
  const config = loadConfig(process.env, overrides);

  switch (command) {
    case "serve": {
      parseArgs({ args, options: {} });
      const { startService } = await import("./serve.ts");
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
      const { ACCOUNTS_HELP, runAccounts, runKeys } = await import("./cli/accounts.ts");
      if (args.includes("--help") || args.includes("-h")) {
        console.log(ACCOUNTS_HELP);
        return 0;
      }
      if (args.length === 0) throw new UsageError(`${command} needs a sub-command.\n\n${ACCOUNTS_HELP}`);
      const { requireDatabase } = await import("./cli/database.ts");
      // PostgreSQL (OG_DATABASE_URL) has no file to create by accident; the SQLite file must exist.
      const commandArgs = config.databaseUrl ? args.filter((arg) => arg !== "--create") : requireDatabase(config.dbPath, args);
      const [{ createServices }, { createLogger }, { inFlagTerms }] = await Promise.all([
        import("./services.ts"),
        import("./logger.ts"),
        import("./cli/flags.ts"),
      ]);
      // Operator commands work on the store a server may be using (SQLite: WAL, and waits for a held lock).
      const services = await createServices(config, { logger: createLogger("warn") });
      try {
        await (command === "accounts" ? runAccounts : runKeys)(services, commandArgs);
      } catch (error) {
        throw inFlagTerms(error);
      } finally {
        await services.close();
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}".\n\n${HELP}`);
  }
}

const isParseArgsError = (error: unknown) =>
  !!error && typeof error === "object" && "code" in error && String((error as { code: unknown }).code).startsWith("ERR_PARSE_ARGS");

/** Every error line starts with `ogsmith:`; a usage text after a blank line is printed as is. */
function report(message: string): void {
  const [problem = "", ...help] = message.split("\n\n");
  for (const line of problem.split("\n")) console.error(`ogsmith: ${line}`);
  if (help.length) console.error("\n" + help.join("\n\n"));
}

main(Bun.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error) => {
    let exitCode = 1;
    if (error instanceof ConfigError) {
      report(`configuration error: ${error.message}`);
      exitCode = 2;
    } else if (error instanceof UsageError || isParseArgsError(error)) {
      report((error as Error).message);
      exitCode = 2;
    } else if (error instanceof ListenError) {
      report(error.message);
      exitCode = error.exitCode;
    } else if (error instanceof ApiError) {
      report(error.message);
      for (const d of error.details ?? []) console.error(`ogsmith:   ${d.field}: ${d.message}`);
    } else report(error instanceof Error ? error.message : String(error));
    process.exit(exitCode);
  },
);
