/**
 * Runs a load spec from several client processes at once and merges their answers, so a
 * many-core server is measured with a client that can keep up (bench/lib/load-client.ts).
 */
import { join } from "node:path";
import type { LoadResult, LoadSpec } from "./load-client.ts";

const CLIENT = join(import.meta.dir, "load-client.ts");

export interface Measured {
  ok: number;
  perSecond: number;
  median: number;
  p95: number;
  p99: number;
  errors: Record<string, number>;
}

export const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

/** The middle of unsorted values (the upper middle of an even count); NaN for none. */
export const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

type ClientSpec = Omit<LoadSpec, "connections" | "offset">;

/**
 * `connections` are split over `processes` client processes; every client runs `spec.seconds`.
 * `spec` may differ per client process (e.g. one API key each, so no key's rate limit is the ceiling).
 */
export async function measure(spec: ClientSpec | ((process: number) => ClientSpec), connections: number, processes: number): Promise<Measured> {
  const per = Math.max(1, Math.floor(connections / processes));
  const specOf = typeof spec === "function" ? spec : () => spec;
  const clients = Array.from({ length: processes }, (_, p) =>
    Bun.spawn(["bun", CLIENT, JSON.stringify({ ...specOf(p), connections: per, offset: p * 10_000_000 } satisfies LoadSpec)], {
      stdout: "pipe",
      stderr: "inherit",
    }),
  );
  const results = await Promise.all(
    clients.map(async (client) => {
      const text = await new Response(client.stdout).text();
      await client.exited;
      return JSON.parse(text.trim().split("\n").pop() || "{}") as LoadResult;
    }),
  );
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const ok = results.reduce((sum, r) => sum + r.ok, 0);
  const seconds = Math.max(...results.map((r) => r.seconds));
  const errors: Record<string, number> = {};
  for (const r of results) for (const [k, v] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + v;
  return { ok, perSecond: ok / seconds, median: quantile(latencies, 0.5), p95: quantile(latencies, 0.95), p99: quantile(latencies, 0.99), errors };
}

export function markdownTable(header: string[], rows: (string | number)[][]): string {
  const align = header.map((_, i) => (i === 0 ? "---" : "---:"));
  return [header, align, ...rows.map((r) => r.map(String))].map((r) => `| ${r.join(" | ")} |`).join("\n");
}
