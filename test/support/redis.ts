/**
 * A throwaway redis-server for tests: a free loopback port, no persistence (`--save ''
 * --appendonly no`), its working dir in a temp dir, never a system service. `stop()` / `start()`
 * take it down and bring it back on the same port for fault tests (Redis down → 503, recovery).
 * Stopped at process exit.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { unusedPort } from "./loopback.ts";
import { watchdog } from "./postgres.ts";

export const redisAvailable = (): boolean => spawnSync("sh", ["-c", "command -v redis-server"]).status === 0;

export interface RedisServer {
  port: number;
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Resolves once something accepts TCP connections and answers PING on the port. */
async function waitForPing(port: number, proc: ChildProcess, deadlineMs: number, log: () => string): Promise<void> {
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`redis-server exited (${proc.exitCode}): ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.setTimeout(500);
      socket.once("connect", () => socket.write("PING\r\n"));
      socket.once("data", (data) => {
        socket.destroy();
        resolve(data.toString().startsWith("+PONG"));
      });
      socket.once("error", () => resolve(false));
      socket.once("timeout", () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    if (Date.now() > deadlineMs) throw new Error(`redis-server did not answer within the deadline: ${log()}`);
    await Bun.sleep(20);
  }
}

export async function startRedis(): Promise<RedisServer> {
  if (!redisAvailable()) throw new Error("redis-server is not installed (apt-get install redis-server)");
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-redis-"));
  const port = await unusedPort();
  let child: ChildProcess | null = null;

  const start = async () => {
    const proc = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
        "--pidfile",
        join(dir, "redis.pid"),
        "--daemonize",
        "no",
        "--loglevel",
        "warning",
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child = proc;
    let out = "";
    const collect = (chunk: Buffer) => {
      if (out.length < 20_000) out += chunk.toString();
    };
    proc.stdout!.on("data", collect);
    proc.stderr!.on("data", collect);
    await waitForPing(port, proc, Date.now() + 15_000, () => out);
  };

  const stop = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    proc.kill("SIGKILL"); // like a crash; nothing is persisted anyway
    await exited;
    child = null;
  };

  await start();
  watchdog(`[ -f '${dir}/redis.pid' ] && kill -9 "$(cat '${dir}/redis.pid')"`, dir);
  process.once("exit", () => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}

let shared: Promise<RedisServer> | null = null;

/** The test process's one redis-server, started on first use. Tests that stop it should use their own `startRedis()`. */
export function sharedRedis(): Promise<RedisServer> {
  shared ??= startRedis();
  return shared;
}
