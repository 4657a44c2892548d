/**
 * bench:tenant-isolation — does a tenant sending the most expensive account template the bounds
 * allow (bench/lib/expensive-templates.ts) stall another account's renders? A server with 2 render
 * workers; account B renders sequentially (an event card, then its own account template, distinct
 * titles) once alone and once while account A keeps several renders of an expensive template in
 * flight. Prints B's latency both ways and what A got. A printed table, not a test.
 *
 *   bun run bench/tenant-isolation.ts [--template nested-blurs] [--seconds 20] [--flood 4]
 *   bun run bench/tenant-isolation.ts --uncapped   # each expensive template drawn without the 5 s bound
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { silentLogger } from "../src/logger.ts";
import { RenderPool } from "../src/render/sandbox/pool.ts";
import { MAX_SIZE } from "../src/render/request.ts";
import { parseAccountTemplate } from "../src/templates/account/index.ts";
import { EXPENSIVE_TEMPLATES } from "./lib/expensive-templates.ts";
import { createBenchAccount, startOgsmith } from "./lib/server.ts";

const { values: args } = parseArgs({
  options: {
    template: { type: "string", default: "nested-blurs" },
    seconds: { type: "string", default: "20" },
    flood: { type: "string", default: "4" },
    uncapped: { type: "boolean", default: false },
  },
});

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : Number.NaN);
const row = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${Math.round(quantile(s, 0.5))} / ${Math.round(quantile(s, 0.95))} / ${Math.round(s.at(-1)!)}`;
};

/** Each expensive template at the largest size on one worker, per engine, with a 60 s cap instead of 5 s: how long it takes. */
async function uncapped() {
  console.log(`| template | engine | ${MAX_SIZE}×${MAX_SIZE} ms, median of 3 (60 s cap) |\n|---|---|---|`);
  for (const engine of ["satori", "takumi"] as const) {
    const pool = new RenderPool({ workers: 1, engine, logger: silentLogger, timeoutMs: 60_000 });
    await pool.ready();
    try {
      for (const [name, definition] of Object.entries(EXPENSIVE_TEMPLATES)) {
        const spec = parseAccountTemplate(definition);
        const times: number[] = [];
        let outcome = "";
        for (let i = 0; i < 3 && !outcome; i++) {
          const t0 = performance.now();
          outcome = await pool
            .render({
              template: spec.id,
              theme: "dark",
              fields: {},
              images: {},
              width: MAX_SIZE,
              height: MAX_SIZE,
              accountTemplate: { accountId: "a", version: 1, spec },
            })
            .then(
              () => "",
              (error) => ` (${error.code ?? error.message})`,
            );
          times.push(performance.now() - t0);
        }
        times.sort((a, b) => a - b);
        console.log(`| ${name} | ${engine} | ${Math.round(times[Math.floor(times.length / 2)]!)}${outcome} [${times.map(Math.round).join(", ")}] |`);
      }
    } finally {
      await pool.close();
    }
  }
}

async function main() {
  console.log(`bench:tenant-isolation — ${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} cores (shared), bun ${Bun.version}\n`);
  if (args.uncapped) return uncapped();
  const definition = EXPENSIVE_TEMPLATES[args.template!];
  if (!definition) throw new Error(`--template must be one of ${Object.keys(EXPENSIVE_TEMPLATES).join(", ")}`);
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-tenants-"));
  const server = await startOgsmith(dir, { OG_RENDER_WORKERS: "2", OG_CACHE_DIR: join(dir, "cache") });
  try {
    const keyA = await createBenchAccount(server.url, { email: "a@example.com" });
    const keyB = await createBenchAccount(server.url, { email: "b@example.com" });
    const api = (key: string, path: string, body: unknown) =>
      fetch(`${server.url}${path}`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(body) });
    const created = await api(keyA, "/api/templates", definition);
    if (created.status !== 201) throw new Error(`A's template was refused: ${created.status} ${await created.text()}`);
    const own = {
      id: "b-card",
      fields: [{ name: "title", type: "text", required: true }],
      html: '<div style="display:flex;width:100%;height:100%;background:#113355;color:white;font-size:64px;padding:80px">{{title}}</div>',
    };
    if ((await api(keyB, "/api/templates", own)).status !== 201) throw new Error("B's template was refused");

    let n = 0;
    /** B: one render at a time, alternating a built-in card and its own template; latency of each. */
    async function bRenders(count: number): Promise<{ ms: number[]; failed: Record<string, number> }> {
      const ms: number[] = [];
      const failed: Record<string, number> = {};
      for (let i = 0; i < count; i++) {
        const body = i % 2 ? { template: "b-card", title: `B card ${n++}` } : { title: `B event ${n++}` };
        const t0 = performance.now();
        const res = await api(keyB, "/api/generate", body);
        await res.arrayBuffer();
        if (res.status === 200) ms.push(performance.now() - t0);
        else failed[res.status] = (failed[res.status] ?? 0) + 1;
      }
      return { ms, failed };
    }

    await bRenders(4); // warm both workers
    const alone = await bRenders(30);

    // A: `flood` loops, each sending the expensive template again as soon as it is answered
    // (distinct sizes, so identical requests are not merged into one render).
    const deadline = performance.now() + Number(args.seconds) * 1000;
    const a = { statuses: {} as Record<string, number>, ms: [] as number[] };
    let size = 0;
    const flood = Array.from({ length: Number(args.flood) }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        // A client that gives up after 30 s, as crawlers do.
        const body = JSON.stringify({ template: args.template, width: 1200 + (size++ % 1000), height: 1200 });
        const res = await fetch(`${server.url}/api/generate`, {
          method: "POST",
          headers: { "x-api-key": keyA, "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(30_000),
        }).catch(() => undefined);
        await res?.arrayBuffer();
        const status = res ? String(res.status) : "gave up after 30 s";
        a.statuses[status] = (a.statuses[status] ?? 0) + 1;
        a.ms.push(performance.now() - t0);
        if (res?.status === 503) await Bun.sleep(Math.min(5, Number(res.headers.get("retry-after") ?? 1)) * 1000);
      }
    });
    await Bun.sleep(500); // A's first renders are under way
    const during = await bRenders(30);
    await Promise.all(flood);

    console.log(
      `A floods with ${args.flood} concurrent renders of "${args.template}" for ${args.seconds} s; B renders 30 cards one at a time (event and its own template, alternating).\n`,
    );
    console.log("| B's renders | 200 | failed | latency p50 / p95 / max ms |\n|---|---|---|---|");
    console.log(`| alone | ${alone.ms.length} | ${JSON.stringify(alone.failed)} | ${row(alone.ms)} |`);
    console.log(`| while A floods | ${during.ms.length} | ${JSON.stringify(during.failed)} | ${row(during.ms)} |`);
    console.log(
      `\nA's answers: ${Object.entries(a.statuses)
        .map(([s, c]) => `${s}×${c}`)
        .join(", ")}; latency p50 / p95 / max ${row(a.ms)} ms`,
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
