/**
 * Three `ogsmith serve` processes on one throwaway PostgreSQL, and one account made through the
 * first one's admin API: the setup the cluster tests of one feature share. Call it inside a
 * describe block; its hooks start and stop everything.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import type { Subprocess } from "bun";
import { startPostgres, testDatabaseUrl, type PostgresServer } from "./postgres.ts";
import { spawnServe } from "./process.ts";

export interface ThreeInstances {
  /** The three instances' base URLs (filled by beforeAll). */
  readonly urls: string[];
  /** The account's API key (set by beforeAll). */
  readonly key: string;
}

export function useThreeInstances(options: { adminToken: string; email: string; env?: Record<string, string> }): ThreeInstances {
  let pg: PostgresServer | undefined;
  const children: Subprocess[] = [];
  const state = { urls: [] as string[], key: "" };
  beforeAll(async () => {
    pg = await startPostgres();
    const env = { OG_DATABASE_URL: await testDatabaseUrl(pg), OG_TEST_CLOCK: "0", ...options.env };
    const spawned = await Promise.all([0, 1, 2].map(() => spawnServe({ adminToken: options.adminToken, env, children, timeoutMs: 60_000 })));
    state.urls.push(...spawned.map((s) => s.url));
    const res = await fetch(`${state.urls[0]}/admin/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${options.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ email: options.email, plan: "custom", quota: 10_000, requests_per_second: 10_000 }),
    });
    expect(res.status).toBe(201);
    state.key = ((await res.json()) as { api_key: string }).api_key;
  }, 120_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await Promise.all(children.map((c) => c.exited));
    await pg?.stop();
  });
  return state;
}
