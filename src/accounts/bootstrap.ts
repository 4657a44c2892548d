/**
 * First start on an empty database: create one free-plan account and hand its key to the person
 * who started the service, once (OG_BOOTSTRAP). The key is printed as plain text on stderr, apart
 * from the JSON log on stdout, so a pipeline that parses and keeps the JSON log never stores it;
 * and it is written once to a file only its owner can read (0600), whose path the banner names,
 * for whoever reads the logs of a container rather than its terminal.
 */
import { closeSync, fchmodSync, openSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { type Config, DEFAULT_DB_PATH } from "../config.ts";
import type { AccountService } from "./accounts.ts";
import { PLANS } from "./plans.ts";

export interface BootstrapOutput {
  /** Where the banner goes (stderr in `serve`). */
  print: (text: string) => void;
  /** The owner-only file the key is also written to; undefined: none (an in-memory database). */
  keyFile?: string;
}

export async function bootstrapFirstAccount(
  accounts: AccountService,
  output: BootstrapOutput,
  /** How the operator runs this program (`ogsmith`, `./dist/ogsmith`, `bun run ogsmith`), for the hint. */
  command = "ogsmith",
  /** The database the service uses: the hints name a SQLite file other than the default, so they work as printed. */
  database: Pick<Config, "dbPath" | "databaseUrl"> = { dbPath: DEFAULT_DB_PATH, databaseUrl: undefined },
): Promise<{ accountId: string; apiKey: string; keyFile: string | undefined } | undefined> {
  if ((await accounts.count()) > 0) return undefined;
  const { account, apiKey } = await accounts.create({ email: "owner@ogsmith.local", plan: "free" });
  const written = output.keyFile ? writeKeyFile(output.keyFile, apiKey) : { ok: false as const, why: "no file for an in-memory database" };
  const update = `${command} accounts update ${account.id}${databaseFlag(database)}`;
  output.print(
    [
      "",
      "  ogsmith: created the first account (free plan) on this empty database.",
      `  Account: ${account.id}`,
      `  API key: ${apiKey}`,
      written.ok
        ? `  The key is also in ${output.keyFile} (readable by its owner only); delete the file once the key is safe.`
        : `  The key was not written to a file (${written.why}).`,
      "  This key is shown once and stored only as a hash. Keep it somewhere safe.",
      `  Set the alert address with: ${update} --email you@example.com`,
      // Free on purpose (a key from a forgotten instance grants little); lifting it is one command.
      `  Raise its plan (free: ${PLANS.free.monthlyQuota} images a month, ${PLANS.free.requestsPerSecond} request a second) with: ${update} --plan pro`,
      "",
    ].join("\n"),
  );
  return { accountId: account.id, apiKey, keyFile: written.ok ? output.keyFile : undefined };
}

/**
 * ` --db PATH` (absolute, quoted for a POSIX shell where needed) when the service uses a SQLite
 * file other than the default, which a shell without the server's OG_DB_PATH would not find;
 * nothing for the default file, an in-memory database or PostgreSQL (whose URL holds a password
 * and is not printed: the operator's OG_DATABASE_URL serves the command as it serves the server).
 */
function databaseFlag({ dbPath, databaseUrl }: Pick<Config, "dbPath" | "databaseUrl">): string {
  if (databaseUrl || dbPath === DEFAULT_DB_PATH || dbPath === ":memory:") return "";
  const path = resolve(dbPath);
  return ` --db ${/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`}`;
}

/** Creates `path` (never overwrites one) with mode 0600 and the key in it. */
function writeKeyFile(path: string, apiKey: string): { ok: true } | { ok: false; why: string } {
  let fd: number | undefined;
  try {
    fd = openSync(path, "wx", 0o600);
    // The mode given to open is filtered by the umask; make it exactly owner read/write.
    fchmodSync(fd, 0o600);
    writeSync(fd, `${apiKey}\n`);
    return { ok: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, why: code === "EEXIST" ? `${path} exists already` : `${path}: ${code ?? (error as Error).message}` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
