/**
 * bench:burst — a crawler storm: N concurrent distinct POST /api/generate (event cards, 1200×630)
 * against a server with 2 render workers and a generous quota. Prints the outcomes (200 / 503
 * with the Retry-After values), latency, the server's peak RSS, and how a signed-URL cache hit
 * fares while the queue is full (answered from the cache, no render). A printed table, not a test.
 *
 *   bun run bench/burst.ts [--requests 200] [--workers 2] [--baseline /work/main]
 * --baseline runs the same burst first against another checkout's `src/main.ts` (the fixed
 * queue of 4 × workers before expected-wait admission), on the same box in the same run.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildSignedUrl } from "../src/signing/index.ts";
import { createBenchAccount, RssSampler, rssMb, startOgsmith } from "./lib/server.ts";

const { values: args } = parseArgs({
  options: { requests: { type: "string", default: "200" }, workers: { type: "string", default: "2" }, baseline: { type: "string" } },
});
const REQUESTS = Number(args.requests);
const WORKERS = args.workers!;

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : Number.NaN);
const ms = (n: number) => (Number.isFinite(n) ? `${Math.round(n)}` : "—");

interface Outcome {
  label: string;
  ok: number;
  busy: number;
  other: Record<string, number>;
  retryAfter: number[];
  okMs: number[];
  busyMs: number[];
  wallMs: number;
  idleRss: number;
  peakRss: number;
  hits: { during: number; ok: number; ms: number[] };
}

async function burst(label: string, binary: string | undefined): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-burst-"));
  const server = await startOgsmith(dir, { OG_RENDER_WORKERS: WORKERS, OG_CACHE_DIR: join(dir, "cache") }, binary);
  try {
    const apiKey = await createBenchAccount(server.url, { quota: 1_000_000, requests_per_second: 10_000 });
    const created = await fetch(`${server.url}/api/signing-keys`, { method: "POST", headers: { "x-api-key": apiKey } });
    const key = (await created.json()) as { id: string; secret: string };
    const signed = buildSignedUrl({
      baseUrl: server.url,
      keyId: key.id,
      secret: key.secret,
      template: "event",
      ext: "png",
      params: { title: "Already rendered" },
    });
    if ((await fetch(signed)).status !== 200) throw new Error("signed URL did not render");
    // Warm both workers (the first render of each pays for fonts and layout).
    await Promise.all(
      [0, 1].map((i) =>
        fetch(`${server.url}/api/generate`, {
          method: "POST",
          headers: { "x-api-key": apiKey, "content-type": "application/json" },
          body: JSON.stringify({ title: `warm ${i}` }),
        }).then((r) => r.arrayBuffer()),
      ),
    );
    Bun.gc(true);
    const idleRss = rssMb(server.pid);
    const rss = new RssSampler(server.pid, 20);

    let inFlight = REQUESTS;
    const started = performance.now();
    const results = Array.from({ length: REQUESTS }, async (_, i) => {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/api/generate`, {
        method: "POST",
        headers: { "x-api-key": apiKey, "content-type": "application/json" },
        body: JSON.stringify({ title: `Burst card number ${i}`, date: "May 5, 2027", location: "Berlin" }),
      });
      await res.arrayBuffer();
      inFlight--;
      return { status: res.status, retryAfter: res.headers.get("retry-after"), ms: performance.now() - t0 };
    });
    // While the burst is queued: the signed URL of an image already rendered, one request at a time.
    const hits = { during: 0, ok: 0, ms: [] as number[] };
    const probing = (async () => {
      while (inFlight > REQUESTS * 0.1) {
        const t0 = performance.now();
        const res = await fetch(signed);
        await res.arrayBuffer();
        hits.during++;
        if (res.status === 200) hits.ok++;
        hits.ms.push(performance.now() - t0);
        await Bun.sleep(20);
      }
    })();
    const done = await Promise.all(results);
    const wallMs = performance.now() - started;
    await probing;
    rss.stop();

    const outcome: Outcome = { label, ok: 0, busy: 0, other: {}, retryAfter: [], okMs: [], busyMs: [], wallMs, idleRss, peakRss: rss.peak, hits };
    for (const r of done) {
      if (r.status === 200) {
        outcome.ok++;
        outcome.okMs.push(r.ms);
      } else if (r.status === 503) {
        outcome.busy++;
        outcome.busyMs.push(r.ms);
        outcome.retryAfter.push(Number(r.retryAfter));
      } else outcome.other[r.status] = (outcome.other[r.status] ?? 0) + 1;
    }
    for (const list of [outcome.okMs, outcome.busyMs, outcome.retryAfter, hits.ms]) list.sort((a, b) => a - b);
    return outcome;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  console.log(
    `bench:burst — ${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} cores (shared), bun ${Bun.version}; ${REQUESTS} concurrent distinct POST /api/generate, ${WORKERS} render workers\n`,
  );
  const runs: Outcome[] = [];
  if (args.baseline) {
    // The other checkout's server, started the same way.
    const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-baseline-"));
    const wrapper = join(dir, "ogsmith");
    writeFileSync(wrapper, `#!/bin/sh\nexec bun ${join(args.baseline, "src/main.ts")} "$@"\n`);
    chmodSync(wrapper, 0o755);
    try {
      runs.push(await burst(`baseline (${args.baseline})`, wrapper));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  runs.push(await burst("this branch", process.env.OG_BENCH_BINARY));

  console.log(
    "| server | 200 | 503 | other | 200 p50 / p95 / max ms | 503 Retry-After min–max s | wall s | RSS idle → peak MB | signed-URL hits during the burst: 200 / sent, p50 / max ms |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of runs) {
    const other =
      Object.entries(r.other)
        .map(([k, v]) => `${k}×${v}`)
        .join(" ") || "0";
    const retry = r.retryAfter.length ? `${r.retryAfter[0]}–${r.retryAfter.at(-1)}` : "—";
    console.log(
      `| ${r.label} | ${r.ok} | ${r.busy} | ${other} | ${ms(quantile(r.okMs, 0.5))} / ${ms(quantile(r.okMs, 0.95))} / ${ms(r.okMs.at(-1)!)} | ${retry} | ${(r.wallMs / 1000).toFixed(1)} | ${r.idleRss.toFixed(0)} → ${r.peakRss.toFixed(0)} | ${r.hits.ok} / ${r.hits.during}, ${ms(quantile(r.hits.ms, 0.5))} / ${ms(r.hits.ms.at(-1)!)} |`,
    );
  }
}

await main();
