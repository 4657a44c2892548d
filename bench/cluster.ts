/**
 * Cluster benchmark: what PostgreSQL (and a second instance) cost or give per request type.
 *
 *   bun run bench:cluster
 *
 * Three set-ups, each measured by the same client in this process (concurrency BENCH_CONCURRENCY):
 *   1. one instance on SQLite (the embedded default; the baseline);
 *   2. one instance on PostgreSQL + Redis;
 *   3. two instances on the same PostgreSQL + Redis, requests alternating between them.
 * For each: authenticated GET /api/user/usage req/s, cached POST /api/generate img/s (one
 * repeated body: PNG-cache hits), a signed URL fetched again and again after its first fetch
 * (GET /i/…: an image already counted this month) and cold renders img/s (distinct titles). Instances are child
 * `bun src/main.ts serve` processes with OG_RENDER_WORKERS = BENCH_WORKERS (default: cores /
 * instances, so one and two instances get the same render threads in all); PostgreSQL and Redis
 * are throwaway servers on loopback (test/support). Phases are time-boxed (BENCH_SECONDS each).
 *
 * Targets: PostgreSQL's per-instance figures within 70 % of SQLite's (usage, cached, signed
 * GET) and 90 % (cold renders); two instances ≥ 1.7× one on cold renders when the box has the
 * cores (on 2 cores both set-ups share the same two).
 */
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";

import { buildSignedUrl } from "../src/signing/index.ts";
import { startPostgres, testDatabaseUrl } from "../test/support/postgres.ts";
import { startRedis } from "../test/support/redis.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ADMIN = "bench-cluster-admin-token-0123456789";
const REPO = new URL("..", import.meta.url).pathname;
const cores = availableParallelism();

interface Instance {
  proc: Subprocess<"ignore", "pipe", "inherit">;
  url: string;
}

const spawned: Subprocess[] = [];
process.on("exit", () => {
  for (const p of spawned) if (p.exitCode === null) p.kill("SIGKILL");
});

async function spawn(env: Record<string, string>, workers: number): Promise<Instance> {
  const proc = Bun.spawn(["bun", `${REPO}src/main.ts`, "serve"], {
    cwd: REPO,
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      OG_ADMIN_TOKEN: ADMIN,
      OG_BOOTSTRAP: "false",
      OG_LOG_LEVEL: "info",
      OG_RENDER_WORKERS: String(workers),
      ...env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
  });
  spawned.push(proc);
  // The port (0 = any free one) is learnt from the "listening" log line, so instances log at info.
  return { proc, url: await readUrl(proc) };
}

async function readUrl(proc: Subprocess<"ignore", "pipe", "inherit">): Promise<string> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
    const match = text.match(/"msg":"listening","url":"([^"]+)"/);
    if (match) {
      void (async () => {
        while (!(await reader.read()).done) {}
      })();
      return match[1]!;
    }
  }
  throw new Error(`instance did not start: ${text.slice(-500)}`);
}

async function account(url: string): Promise<string> {
  const res = await fetch(`${url}/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ email: `bench${Math.random().toString(36).slice(2)}@example.com`, plan: "custom", quota: 10_000_000, requests_per_second: 10_000 }),
  });
  if (res.status !== 201) throw new Error(`account: ${res.status} ${await res.text()}`);
  return (await res.json()).api_key;
}

/** Runs `CONCURRENCY` loops for SECONDS; returns completed 200s per second. */
async function load(urls: string[], request: (url: string, i: number) => Promise<Response>): Promise<number> {
  let done = 0;
  let failed = 0;
  let n = 0;
  const end = performance.now() + SECONDS * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const i = n++;
        const res = await request(urls[i % urls.length]!, i);
        await res.arrayBuffer();
        if (res.status === 200) done++;
        else failed++;
      }
    }),
  );
  if (failed > 0) console.error(`  (${failed} non-200 answers)`);
  return done / ((performance.now() - start) / 1000);
}

async function measure(name: string, urls: string[]): Promise<{ name: string; usage: number; cached: number; signed: number; cold: number }> {
  const key = await account(urls[0]!);
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const usage = await load(urls, (url) => fetch(`${url}/api/user/usage`, { headers }));
  const cached = await load(urls, (url) => fetch(`${url}/api/generate`, { method: "POST", headers, body: JSON.stringify({ title: "Cluster bench, cached" }) }));
  // A signed URL counted by its first fetch, then fetched again and again (free repeats).
  const created = await fetch(`${urls[0]}/api/signing-keys`, { method: "POST", headers });
  if (created.status !== 201) throw new Error(`signing key: ${created.status} ${await created.text()}`);
  const signingKey = (await created.json()) as { id: string; secret: string };
  const signedPath = (url: string) =>
    buildSignedUrl({
      baseUrl: url,
      keyId: signingKey.id,
      secret: signingKey.secret,
      template: "event",
      ext: "png",
      params: { title: "Cluster bench, signed" },
    });
  const first = await fetch(signedPath(urls[0]!));
  if (first.status !== 200) throw new Error(`signed URL: ${first.status} ${await first.text()}`);
  await first.arrayBuffer();
  const signed = await load(urls, (url) => fetch(signedPath(url)));
  const cold = await load(urls, (url, i) =>
    fetch(`${url}/api/generate`, { method: "POST", headers, body: JSON.stringify({ title: `Cluster bench ${name} ${i} ${Math.random()}` }) }),
  );
  console.error(
    `${name}: usage ${usage.toFixed(0)} req/s, cached ${cached.toFixed(0)} img/s, signed ${signed.toFixed(0)} req/s, cold ${cold.toFixed(1)} img/s`,
  );
  return { name, usage, cached, signed, cold };
}

async function stop(instances: Instance[]) {
  for (const i of instances) i.proc.kill("SIGTERM");
  await Promise.all(instances.map((i) => i.proc.exited));
}

const timer = setTimeout(
  () => {
    console.error("bench:cluster: deadline passed");
    process.exit(1);
  },
  Number(process.env.BENCH_DEADLINE_S ?? 600) * 1000,
);

const rows = [];
const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-cluster-"));
const oneWorkers = Number(process.env.BENCH_WORKERS ?? Math.max(1, cores));
const twoWorkers = Number(process.env.BENCH_WORKERS ?? Math.max(1, Math.floor(cores / 2)));
try {
  const sqlite = [await spawn({ OG_DB_PATH: join(dir, "bench.db") }, oneWorkers)];
  rows.push(
    await measure(
      "1 × SQLite",
      sqlite.map((i) => i.url),
    ),
  );
  await stop(sqlite);

  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const env = { OG_DATABASE_URL: await testDatabaseUrl(pg), OG_REDIS_URL: redis.url };
  const one = [await spawn(env, oneWorkers)];
  rows.push(
    await measure(
      "1 × PostgreSQL",
      one.map((i) => i.url),
    ),
  );
  await stop(one);
  const two = await Promise.all([spawn(env, twoWorkers), spawn(env, twoWorkers)]);
  rows.push(
    await measure(
      "2 × PostgreSQL",
      two.map((i) => i.url),
    ),
  );
  await stop(two);
  await redis.stop();
  await pg.stop();
} catch (error) {
  console.error(error);
  process.exit(1);
} finally {
  rmSync(dir, { recursive: true, force: true });
  clearTimeout(timer);
}

const base = rows[0]!;
const pct = (v: number, b: number) => `${((v / b) * 100).toFixed(0)} %`;
console.log(`\n${cores} cores, concurrency ${CONCURRENCY}, ${SECONDS} s per phase, render workers: ${oneWorkers} (one instance) / ${twoWorkers} each (two)\n`);
console.log("| set-up | usage req/s | cached img/s | signed GET req/s | cold img/s |");
console.log("|---|---:|---:|---:|---:|");
for (const r of rows)
  console.log(
    `| ${r.name} | ${r.usage.toFixed(0)} (${pct(r.usage, base.usage)}) | ${r.cached.toFixed(0)} (${pct(r.cached, base.cached)}) | ${r.signed.toFixed(0)} (${pct(r.signed, base.signed)}) | ${r.cold.toFixed(1)} (${pct(r.cold, base.cold)}) |`,
  );
const pgOne = rows[1]!;
const pgTwo = rows[2]!;
const ratio = (v: number, b: number) => (v / b).toFixed(2);
console.log(
  `\nPostgreSQL + Redis per instance / SQLite: usage ${ratio(pgOne.usage, base.usage)} (target ≥ 0.70), cached ${ratio(pgOne.cached, base.cached)} (≥ 0.70), signed GET ${ratio(pgOne.signed, base.signed)} (≥ 0.70), cold ${ratio(pgOne.cold, base.cold)} (≥ 0.90)`,
);
console.log(`two instances vs one on cold renders (target ≥ 1.7× when cores allow): ${(pgTwo.cold / pgOne.cold).toFixed(2)}×`);
process.exit(0);
