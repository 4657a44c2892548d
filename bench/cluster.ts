/**
 * Cluster benchmark: what PostgreSQL (and a second instance) cost or give per request type.
 *
 *   bun run bench:cluster
 *
 * Three set-ups, measured by the same client in this process (concurrency BENCH_CONCURRENCY),
 * taking turns in short slices so a shared box's other load falls on each alike:
 *   1. one instance on SQLite (the embedded default; the baseline);
 *   2. one instance on PostgreSQL + Redis;
 *   3. two instances on the same PostgreSQL + Redis, requests alternating between them.
 * For each: authenticated GET /api/user/usage req/s, cached POST /api/generate img/s (one
 * repeated body: PNG-cache hits), a signed URL fetched again and again after its first fetch
 * (GET /i/…: an image already counted this month) and cold renders img/s (distinct titles).
 * Instances are child `bun src/main.ts serve` processes with OG_RENDER_WORKERS = BENCH_WORKERS (default: cores /
 * instances, so one and two instances get the same render threads in all); PostgreSQL and Redis
 * are throwaway servers on loopback (test/support). Each set-up gets BENCH_SECONDS per phase, in
 * BENCH_SLICES turns.
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
/** Turns each set-up's SECONDS of a phase are cut into (see measureAll). */
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
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

/** Runs `CONCURRENCY` loops for `seconds`; returns the completed 200s and the time taken. */
async function load(urls: string[], seconds: number, request: (url: string, i: number) => Promise<Response>): Promise<{ done: number; seconds: number }> {
  let done = 0;
  let failed = 0;
  let n = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
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
  return { done, seconds: (performance.now() - start) / 1000 };
}

const PHASES = ["usage", "cached", "signed", "cold"] as const;
type Phase = (typeof PHASES)[number];
interface SetUp {
  name: string;
  urls: string[];
  requests: Record<Phase, (url: string, i: number) => Promise<Response>>;
}

/** An account, its cached image and its signed URL (counted by a first fetch) on a set-up. */
async function prepare(name: string, urls: string[]): Promise<SetUp> {
  const key = await account(urls[0]!);
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const created = await fetch(`${urls[0]}/api/signing-keys`, { method: "POST", headers });
  if (created.status !== 201) throw new Error(`signing key: ${created.status} ${await created.text()}`);
  const signingKey = (await created.json()) as { id: string; secret: string };
  const signedUrl = (url: string) =>
    buildSignedUrl({
      baseUrl: url,
      keyId: signingKey.id,
      secret: signingKey.secret,
      template: "event",
      ext: "png",
      params: { title: "Cluster bench, signed" },
    });
  const first = await fetch(signedUrl(urls[0]!));
  if (first.status !== 200) throw new Error(`signed URL: ${first.status} ${await first.text()}`);
  await first.arrayBuffer();
  return {
    name,
    urls,
    requests: {
      usage: (url) => fetch(`${url}/api/user/usage`, { headers }),
      cached: (url) => fetch(`${url}/api/generate`, { method: "POST", headers, body: JSON.stringify({ title: "Cluster bench, cached" }) }),
      signed: (url) => fetch(signedUrl(url)),
      cold: (url, i) =>
        fetch(`${url}/api/generate`, { method: "POST", headers, body: JSON.stringify({ title: `Cluster bench ${name} ${i} ${Math.random()}` }) }),
    },
  };
}

/**
 * Every phase on every set-up, in SLICES short turns taken in rotation (SQLite, PostgreSQL,
 * two PostgreSQL, SQLite, …), so that what else the box runs meanwhile weighs on each set-up
 * alike and the ratios hold on a shared box; each set-up gets SECONDS per phase in all.
 */
async function measureAll(setUps: SetUp[]): Promise<({ name: string } & Record<Phase, number>)[]> {
  const totals = setUps.map(() => Object.fromEntries(PHASES.map((p) => [p, { done: 0, seconds: 0 }])) as Record<Phase, { done: number; seconds: number }>);
  for (const phase of PHASES) {
    for (let slice = 0; slice < SLICES; slice++) {
      for (const [i, setUp] of setUps.entries()) {
        const { done, seconds } = await load(setUp.urls, SECONDS / SLICES, setUp.requests[phase]);
        totals[i]![phase].done += done;
        totals[i]![phase].seconds += seconds;
      }
    }
  }
  return setUps.map((setUp, i) => ({
    name: setUp.name,
    ...(Object.fromEntries(PHASES.map((p) => [p, totals[i]![p].done / totals[i]![p].seconds])) as Record<Phase, number>),
  }));
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

let rows: ({ name: string } & Record<Phase, number>)[] = [];
const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-cluster-"));
const oneWorkers = Number(process.env.BENCH_WORKERS ?? Math.max(1, cores));
const twoWorkers = Number(process.env.BENCH_WORKERS ?? Math.max(1, Math.floor(cores / 2)));
try {
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const env = { OG_DATABASE_URL: await testDatabaseUrl(pg), OG_REDIS_URL: redis.url };
  // All four instances run throughout; the ones not in their turn are idle.
  const [sqlite, one, ...two] = await Promise.all([
    spawn({ OG_DB_PATH: join(dir, "bench.db") }, oneWorkers),
    spawn(env, oneWorkers),
    spawn(env, twoWorkers),
    spawn(env, twoWorkers),
  ]);
  rows = await measureAll([
    await prepare("1 × SQLite", [sqlite!.url]),
    await prepare("1 × PostgreSQL + Redis", [one!.url]),
    await prepare(
      "2 × PostgreSQL + Redis",
      two.map((i) => i.url),
    ),
  ]);
  await stop([sqlite!, one!, ...two]);
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
