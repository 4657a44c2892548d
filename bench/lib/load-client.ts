/**
 * One load-generating process for the benchmarks: `connections` concurrent request loops against
 * one URL for `seconds`, then one JSON line on stdout with the count, errors and latencies (ms).
 * Several of these run side by side (bench/lib/load.ts) so the client is not the bottleneck on a
 * many-core machine; a hello-world server measured with the same client gives the ceiling.
 *
 *   bun bench/lib/load-client.ts '<json LoadSpec>'
 */
export interface LoadSpec {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Headers per connection (connection n uses entry n mod length), e.g. several API keys so one key's rate limit is not the ceiling. */
  connectionHeaders?: Record<string, string>[];
  /** Request body; `{i}` in it is replaced with a per-request counter unique across clients. */
  body?: string;
  connections: number;
  seconds: number;
  /** Counter offset so that several client processes make distinct bodies. */
  offset?: number;
  /** Only count answers with this status as successes. */
  expectStatus?: number;
}

export interface LoadResult {
  ok: number;
  errors: Record<string, number>;
  latencies: number[];
  seconds: number;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const expect = spec.expectStatus ?? 200;
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  let counter = spec.offset ?? 0;
  let ok = 0;
  const started = performance.now();
  const stopAt = started + spec.seconds * 1000;
  const templated = spec.body?.includes("{i}") ?? false;
  await Promise.all(
    Array.from({ length: spec.connections }, async (_, n) => {
      const headers = spec.connectionHeaders?.length ? { ...spec.headers, ...spec.connectionHeaders[n % spec.connectionHeaders.length] } : spec.headers;
      while (performance.now() < stopAt) {
        const body = spec.body === undefined ? undefined : templated ? spec.body.replaceAll("{i}", String(counter++)) : spec.body;
        const t = performance.now();
        try {
          const res = await fetch(spec.url, { method: spec.method ?? "GET", headers, body });
          await res.arrayBuffer();
          if (res.status === expect) {
            ok++;
            latencies.push(performance.now() - t);
          } else {
            errors[String(res.status)] = (errors[String(res.status)] ?? 0) + 1;
          }
        } catch (error) {
          const name = (error as Error).name || "error";
          errors[name] = (errors[name] ?? 0) + 1;
        }
      }
    }),
  );
  return { ok, errors, latencies, seconds: (performance.now() - started) / 1000 };
}

if (import.meta.main) {
  const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec;
  const result = await runLoad(spec);
  result.latencies = result.latencies.map((ms) => Math.round(ms * 100) / 100);
  // Bun.write waits for the whole (large) line to reach the pipe before the process exits.
  await Bun.write(Bun.stdout, JSON.stringify(result) + "\n");
  process.exit(0);
}
