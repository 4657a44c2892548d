/**
 * A throwaway PostgreSQL server for tests: `initdb` into a temp dir, `postgres` on a free
 * loopback port with its socket in that dir and fsync off (the data dies with the test), never a
 * system service. One server per test process, started on first use and reused by every test in
 * it; `testDatabaseUrl()` creates a fresh, empty database per call so tests never share state.
 * The server is stopped (and its directory removed) when the process exits.
 *
 * PostgreSQL refuses to run as root, so as root the data directory is handed to the `postgres`
 * user and the server binaries run under `runuser`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

import { unusedPort } from "./loopback.ts";

const SUPERUSER = "ogsmith_test";

/** The directory holding initdb/postgres/pg_ctl, or null when PostgreSQL is not installed. */
export function postgresBinDir(): string | null {
  const fromEnv = process.env.OG_TEST_PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, "postgres"))) return fromEnv;
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, "bin", "postgres")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v postgres"], { encoding: "utf8" });
  const path = which.stdout.trim();
  return path ? path.slice(0, path.lastIndexOf("/")) : null;
}

export const postgresAvailable = (): boolean => postgresBinDir() !== null;

export interface PostgresServer {
  port: number;
  dir: string;
  /** A URL to the `postgres` maintenance database (used to create test databases). */
  adminUrl: string;
  /** Stops the server (fast shutdown); `start()` brings it back on the same port and data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Immediate shutdown (SIGQUIT): connections are cut without a goodbye, like a crash. */
  crash(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

function pgUid(): { uid: number; gid: number } | null {
  if (!asRoot) return null;
  const out = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (out.status !== 0) throw new Error("running as root but there is no 'postgres' user to run PostgreSQL as");
  return { uid: Number(out.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** argv for running a PostgreSQL binary, through runuser when we are root. */
function asPostgres(bin: string, args: string[]): [string, string[]] {
  return asRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
}

function postmasterPid(data: string): number | null {
  try {
    const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Starts a new throwaway server. Most tests want `sharedPostgres()` / `testDatabaseUrl()` instead. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (apt-get install postgresql)");
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-pg-"));
  const data = join(dir, "data");
  const owner = pgUid();
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chmodSync(dir, 0o700);
  }
  const [cmd, args] = asPostgres(join(bin, "initdb"), ["-D", data, "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const init = spawnSync(cmd, args, { encoding: "utf8" });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await unusedPort();
  let child: ChildProcess | null = null;

  const start = async () => {
    const [cmd, args] = asPostgres(join(bin, "postgres"), [
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=300",
      "-c",
      "shared_buffers=32MB",
      "-c",
      "log_min_messages=warning",
    ]);
    const proc = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
    child = proc;
    let stderr = "";
    proc.stderr!.on("data", (chunk: Buffer) => {
      if (stderr.length < 20_000) stderr += chunk.toString();
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`postgres exited (${proc.exitCode}): ${stderr}`);
      const sql = postgres(`postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`, { max: 1, connect_timeout: 2, onnotice: () => {} });
      try {
        await sql`select 1`;
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 30 s: ${stderr}`);
        await Bun.sleep(50);
      } finally {
        await sql.end({ timeout: 1 }).catch(() => {});
      }
    }
  };

  const stopWith = async (signal: NodeJS.Signals) => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    // Signal the postmaster itself (runuser does not forward every signal), then wait for the
    // process we spawned to be gone so the port is free.
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    const pid = postmasterPid(data);
    if (pid) process.kill(pid, signal);
    else proc.kill(signal);
    await exited;
    child = null;
  };

  await start();
  const server: PostgresServer = {
    port,
    dir,
    adminUrl: `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`,
    start,
    stop: () => stopWith("SIGINT"),
    crash: () => stopWith("SIGQUIT"),
  };
  watchdog(`[ -f '${data}/postmaster.pid' ] && kill -QUIT "$(head -1 '${data}/postmaster.pid')"`, dir);
  process.once("exit", () => {
    const proc = child;
    if (proc && proc.exitCode === null) {
      const pid = postmasterPid(data);
      if (pid) process.kill(pid, "SIGQUIT");
      else proc.kill("SIGQUIT");
      // Wait briefly (synchronously: we are in 'exit') so the data dir can go.
      spawnSync("sh", ["-c", `for i in $(seq 1 50); do [ -e '${data}/postmaster.pid' ] || exit 0; sleep 0.02; done`]);
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return server;
}

/**
 * A detached shell that outlives this process: once it is gone (however it ended — bun test
 * does not always run 'exit' handlers, and kill -9 runs none), it runs `stop` and removes `dir`.
 * So a throwaway server never outlives the test process that started it.
 */
export function watchdog(stop: string, dir: string): void {
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.5; done; ${stop}; sleep 1; rm -rf '${dir}'`;
  spawn("sh", ["-c", script], { detached: true, stdio: "ignore" }).unref();
}

let shared: Promise<PostgresServer> | null = null;

/** The test process's one server, started on first use. */
export function sharedPostgres(): Promise<PostgresServer> {
  shared ??= startPostgres();
  return shared;
}

let databases = 0;

/** A fresh, empty database on the shared server; returns its URL. */
export async function testDatabaseUrl(server?: PostgresServer): Promise<string> {
  const pg = server ?? (await sharedPostgres());
  const name = `t${process.pid}_${++databases}_${Math.random().toString(36).slice(2, 8)}`;
  const sql = postgres(pg.adminUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`create database "${name}"`);
  } finally {
    await sql.end({ timeout: 1 });
  }
  return `postgres://${SUPERUSER}@127.0.0.1:${pg.port}/${name}`;
}

/** Runs one statement (`$1…` placeholders) on the database at `url`; for tests that set up a state no API reaches. */
export async function execSql(url: string, text: string, params: unknown[]): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(text, params as never[]);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
