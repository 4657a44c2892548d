/**
 * Child processes for the benchmarks: an `ogsmith serve` on a temp database (from source, or the
 * compiled binary with OG_BENCH_BINARY), a bare Bun.serve hello-world as the ceiling, and RSS
 * readings from /proc (worker threads share the process, so they are included).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const ADMIN_TOKEN = "bench-admin-token-0123456789";
const REPO = join(import.meta.dir, "..", "..");

export interface ChildServer {
  url: string;
  pid: number;
  /** Milliseconds from spawn to the first 200 from /healthz. */
  startMs: number;
  stop(): Promise<void>;
}

async function firstOk(url: string, limitMs: number): Promise<void> {
  const until = performance.now() + limitMs;
  while (performance.now() < until) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {}
    await Bun.sleep(2);
  }
  throw new Error(`${url} did not answer 200 within ${limitMs} ms`);
}

async function spawnServer(cmd: string[], env: Record<string, string>, port: number, health: string, cwd?: string): Promise<ChildServer> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdout: "ignore", stderr: "inherit", cwd });
  const url = `http://127.0.0.1:${port}`;
  await firstOk(url + health, 30_000);
  const startMs = performance.now() - started;
  return {
    url,
    pid: proc.pid,
    startMs,
    async stop() {
      proc.kill("SIGTERM");
      await Promise.race([proc.exited, Bun.sleep(5_000).then(() => proc.kill("SIGKILL"))]);
    },
  };
}

export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

/**
 * `ogsmith serve` with its own temp database; extra env (OG_RENDER_WORKERS, …) on top. From
 * source (this tree, or another checkout at `root`), or the compiled binary at `binary`
 * (default OG_BENCH_BINARY).
 */
export function startOgsmith(dir: string, env: Record<string, string> = {}, binary = process.env.OG_BENCH_BINARY, root = REPO): Promise<ChildServer> {
  const port = freePort();
  const cmd = binary ? [binary, "serve"] : ["bun", join(root, "src/main.ts"), "serve"];
  return spawnServer(
    cmd,
    {
      PORT: String(port),
      HOST: "127.0.0.1",
      OG_DB_PATH: join(dir, "bench.db"),
      OG_CACHE_DIR: join(dir, "cache"),
      OG_ADMIN_TOKEN: ADMIN_TOKEN,
      OG_BOOTSTRAP: "false",
      OG_LOG_LEVEL: "warn",
      ...env,
    },
    port,
    "/healthz",
    binary ? undefined : root,
  );
}

/** The compiled binary to measure: OG_BENCH_BINARY, else dist/ogsmith once `bun run build` wrote it. */
export function builtBinary(): string | undefined {
  const path = join(REPO, "dist/ogsmith");
  return process.env.OG_BENCH_BINARY ?? (existsSync(path) ? path : undefined);
}

/** The ceiling for the load client: Bun.serve answering "ok" with nothing else. */
export function startHelloWorld(): Promise<ChildServer> {
  const port = freePort();
  const code = `Bun.serve({ port: ${port}, hostname: "127.0.0.1", fetch: () => new Response("ok") });`;
  return spawnServer(["bun", "-e", code], {}, port, "/");
}

export async function createBenchAccount(url: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${url}/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.com", plan: "custom", quota: 100_000_000, requests_per_second: 10_000, ...body }),
  });
  if (res.status !== 201) throw new Error(`account: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { api_key: string }).api_key;
}

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

/** CPU time a process has used so far, all its threads, user and system (/proc counts in 1/100 s). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Samples a process's RSS every `everyMs` and keeps the peak. */
export class RssSampler {
  peak = 0;
  private readonly timer: ReturnType<typeof setInterval>;
  constructor(
    private readonly pid: number,
    everyMs = 50,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
  }
  sample(): number {
    let mb = Number.NaN;
    try {
      mb = rssMb(this.pid);
    } catch {
      // The process has just exited: nothing to read, the peak stands.
    }
    if (Number.isFinite(mb)) this.peak = Math.max(this.peak, mb);
    return mb;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}
