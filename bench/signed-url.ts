/**
 * bench:signed-url — the path a crawler takes: a signed `GET /i/…` of an image already counted
 * and cached. One run, one load client (bench/lib/load.ts), 64 connections, each row beside the
 * same client's ceiling:
 *   Bun.serve hello-world · GET /healthz · signed GET hit (200 with the image) · signed GET 304.
 * Targets: the hit ≥ 25 % of hello-world requests/s, p99 ≤ 10 ms. A printed table, not a test.
 *
 *   bun run bench/signed-url.ts [--seconds 5] [--clients N]
 * Set OG_BENCH_BINARY=dist/ogsmith to measure the compiled binary instead of `bun src/main.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildSignedUrl } from "../src/signing/index.ts";
import { markdownTable, measure, type Measured } from "./lib/load.ts";
import { createBenchAccount, startHelloWorld, startOgsmith } from "./lib/server.ts";

const cores = availableParallelism();
const { values: args } = parseArgs({
  options: { seconds: { type: "string", default: "5" }, clients: { type: "string", default: String(Math.max(1, Math.min(4, Math.floor(cores / 2)))) } },
});
const SECONDS = Number(args.seconds);
const CLIENTS = Number(args.clients);
const CONNECTIONS = 64;

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "—");
const errorsOf = (m: Measured) =>
  Object.keys(m.errors).length === 0
    ? "0"
    : Object.entries(m.errors)
        .map(([k, v]) => `${k}×${v}`)
        .join(" ");

async function main() {
  const what = process.env.OG_BENCH_BINARY ? `binary ${process.env.OG_BENCH_BINARY}` : "bun src/main.ts";
  console.log(
    `bench:signed-url — ${new Date().toISOString().slice(0, 10)}, ${cores} cores, bun ${Bun.version}, ${what}; ${SECONDS} s per row, ${CLIENTS} client process(es), ${CONNECTIONS} connections\n`,
  );

  const hello = await startHelloWorld();
  let helloRate: Measured;
  try {
    helloRate = await measure({ url: `${hello.url}/`, seconds: SECONDS }, CONNECTIONS, CLIENTS);
  } finally {
    await hello.stop();
  }

  const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-signed-"));
  const server = await startOgsmith(dir, { OG_RENDER_WORKERS: "1" });
  let healthz: Measured;
  let hit: Measured;
  let notModified: Measured;
  try {
    const apiKey = await createBenchAccount(server.url);
    const created = await fetch(`${server.url}/api/signing-keys`, { method: "POST", headers: { "x-api-key": apiKey } });
    if (created.status !== 201) throw new Error(`signing key: ${created.status} ${await created.text()}`);
    const key = (await created.json()) as { id: string; secret: string };
    const url = buildSignedUrl({
      baseUrl: server.url,
      keyId: key.id,
      secret: key.secret,
      template: "event",
      ext: "png",
      params: { title: "Bun Meetup Berlin", date: "May 5, 2027", location: "Berlin" },
    });
    const first = await fetch(url);
    if (first.status !== 200) throw new Error(`first fetch: ${first.status} ${await first.text()}`);
    const etag = first.headers.get("etag")!;
    const size = (await first.arrayBuffer()).byteLength;
    console.log(`image: event card 1200×630 PNG, ${fmt(size / 1024)} KiB, counted once by the first fetch\n`);

    healthz = await measure({ url: `${server.url}/healthz`, seconds: SECONDS }, CONNECTIONS, CLIENTS);
    hit = await measure({ url, seconds: SECONDS }, CONNECTIONS, CLIENTS);
    notModified = await measure({ url, headers: { "if-none-match": etag }, seconds: SECONDS, expectStatus: 304 }, CONNECTIONS, CLIENTS);
    const usage = (await (await fetch(`${server.url}/api/user/usage`, { headers: { "x-api-key": apiKey } })).json()) as { used: number };
    console.log(`(after ${fmt(hit.ok + notModified.ok, 0)} signed requests the account's usage is ${usage.used})\n`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  const pct = (m: Measured) => `${fmt((100 * m.perSecond) / helloRate.perSecond)} %`;
  const row = (name: string, m: Measured) => [name, fmt(m.perSecond, 0), pct(m), fmt(m.median, 2), fmt(m.p99, 2), errorsOf(m)];
  console.log(
    markdownTable(
      ["path", "req/s", "of hello-world", "median ms", "p99 ms", "errors"],
      [
        row("Bun.serve hello-world (ceiling)", helloRate),
        row("GET /healthz", healthz),
        row("signed GET /i/…, hit (200, image)", hit),
        row("signed GET /i/…, If-None-Match (304)", notModified),
      ],
    ),
  );
  const share = hit.perSecond / helloRate.perSecond;
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  console.log(`
targets:
  signed hit ≥ 25 % of hello-world:  ${fmt(100 * share)} %  ${verdict(share >= 0.25)}
  signed hit p99 ≤ 10 ms:            ${fmt(hit.p99, 2)} ms  ${verdict(hit.p99 <= 10)}
  304 cheaper than the hit:          ${fmt(notModified.perSecond, 0)} vs ${fmt(hit.perSecond, 0)} req/s  ${verdict(notModified.perSecond >= hit.perSecond)}`);
}

await main();
