/**
 * Account fonts benchmark: does the fonts feature slow an uncached render of an account that
 * uses none?
 *
 *   bun run bench/account-fonts.ts
 *
 * One run, one render process (a RenderPool with 1 process, the real path a request takes after
 * validation), an account template naming `font-family: Inter` (so the family check runs) and one
 * naming no family, every render uncached (a new title each time), interleaved round by round:
 *   "without": the request as before the feature: no family check, a job without fonts;
 *   "with":    `AccountTemplateService.fontsFor` on the stored SQLite store (an account with no
 *              fonts: no store read), then the same job.
 * The ratio with/without is the feature's cost for such an account. Knobs: BENCH_ROUNDS (8),
 * BENCH_PER_ROUND (8).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/logger.ts";
import { RenderPool, type RenderJob } from "../src/render/sandbox/pool.ts";
import { createServices } from "../src/services.ts";
import { median } from "./lib/load.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 8);
const perRound = Number(process.env.BENCH_PER_ROUND ?? 8);
const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-fonts-"));
const services = await createServices(loadConfig({ OG_DB_PATH: join(dir, "og.db"), OG_LOG_LEVEL: "silent", OG_BOOTSTRAP: "false" }), { logger: silentLogger });
const accountId = (await services.accounts.create({ email: "bench@example.com", plan: "free" })).account.id;
const globals = { get: () => undefined, list: () => [] };
const html = (family: string) =>
  `<div style="display:flex;flex-direction:column;width:100%;height:100%;padding:72px;background:#0b1020;color:#fff${family}"><h1 style="font-size:72px;font-weight:800">{{title}}</h1><p style="font-size:32px">An account card with a title and a line of text.</p></div>`;
const named = await services.accountTemplates.create(
  accountId,
  { id: "named", html: html(";font-family:Inter"), fields: [{ name: "title", type: "text", required: true }] },
  globals,
);
const plain = await services.accountTemplates.create(
  accountId,
  { id: "plain", html: html(""), fields: [{ name: "title", type: "text", required: true }] },
  globals,
);

const pool = new RenderPool({ workers: 1, logger: silentLogger, fontBytes: (digests) => services.accountFonts.bytes(digests) });
await pool.ready();

let n = 0;
async function once(spec: typeof named, withFeature: boolean): Promise<number> {
  const started = performance.now();
  const resolved = await services.accountTemplates.resolve(accountId, spec.id);
  if (!resolved || resolved === "no_version") throw new Error("template missing");
  const fonts = withFeature ? (await services.accountTemplates.fontsFor(accountId, resolved.spec)).fonts : undefined;
  const job: RenderJob = {
    template: spec.id,
    theme: "dark",
    fields: { title: `Uncached card number ${++n}` },
    images: {},
    width: 1200,
    height: 630,
    accountTemplate: { accountId, version: resolved.version, spec: resolved.spec, revision: resolved.digest },
    ...(fonts ? { fonts } : {}),
  };
  await pool.render(job);
  return performance.now() - started;
}

const times: Record<string, number[]> = { "named, without": [], "named, with": [], "plain, without": [], "plain, with": [] };
for (const spec of [named, plain]) for (const flag of [false, true]) await once(spec, flag); // warm-up
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < perRound; i++) {
    for (const [spec, label] of [
      [named, "named"],
      [plain, "plain"],
    ] as const) {
      const order = (round + i) % 2 === 0 ? [false, true] : [true, false];
      for (const flag of order) times[`${label}, ${flag ? "with" : "without"}`]!.push(await once(spec, flag));
    }
  }
}
console.log(`${rounds * perRound} uncached renders per row, 1200×630 PNG, one render process`);
console.log("| template | without the feature (median) | with it (median) | ratio |");
console.log("|---|---|---|---|");
for (const label of ["named", "plain"]) {
  const without = median(times[`${label}, without`]!);
  const withIt = median(times[`${label}, with`]!);
  console.log(
    `| ${label === "named" ? "`font-family: Inter`" : "no font-family"} | ${without.toFixed(1)} ms | ${withIt.toFixed(1)} ms | ${(withIt / without).toFixed(3)} |`,
  );
}
await pool.close();
await services.close();
rmSync(dir, { recursive: true, force: true });
