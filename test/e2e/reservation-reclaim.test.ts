/**
 * Units reserved by requests that could not confirm or release them (the store failed under
 * them) come back through the running service, without a restart: the real faults — a full disk
 * under the SQLite database, a PostgreSQL server stopped while renders are in flight — then the
 * whole quota is usable again, no unit counted twice and none lost.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { serveHttp, type HttpFixture } from "../support/loopback.ts";
import { solidPngDataUri } from "../support/png.ts";
import { startTestService, TEST_STORE, type TestService, useUp } from "../support/harness.ts";
import { waitFor } from "../support/wait.ts";
import { fillDisk, withSmallDisk } from "../support/disk.ts";

const PNG = Buffer.from(solidPngDataUri(8, 8, [200, 30, 30]).split(",")[1]!, "base64");

/** An image server that holds every answer until `open()`: requests wait with their unit reserved. */
function heldImages(): HttpFixture & { open(): void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const fixture = serveHttp(async () => {
    await gate;
    return new Response(PNG, { headers: { "content-type": "image/png" } });
  });
  return { ...fixture, open };
}

async function usage(s: TestService, key: string): Promise<{ used: number; remaining: number }> {
  const res = await s.api("/api/user/usage", { key });
  expect(res.status).toBe(200);
  return (await res.json()) as { used: number; remaining: number };
}

/** Generates until refused; every answer is 200 or 429 QUOTA_EXCEEDED. Returns how many were 200. */
const sqliteOnly = TEST_STORE === "sqlite" ? describe : describe.skip;

sqliteOnly("SQLite: the disk fills while renders are in flight", () => {
  test("the units they held come back without a restart; the whole quota is usable, none twice", async () => {
    await withSmallDisk("reservation-reclaim", async ({ base, mountDir }) => {
      const images = heldImages();
      let s: TestService | undefined;
      try {
        const dbPath = join(mountDir, "ogsmith.db");
        s = await startTestService({ OG_DB_PATH: dbPath, OG_ALLOW_PRIVATE_NETWORKS: "1", OG_CACHE_DIR: join(base, "cache") });
        const quota = 12;
        const { apiKey } = await s.createAccount({ plan: "custom", quota, requests_per_second: 1000 });
        const inFlight = 6;
        const answers = Array.from({ length: inFlight }, (_, i) =>
          s!.api("/api/generate", { key: apiKey, json: { title: `in flight ${i}`, logo_url: images.url(`/logo-${i}.png`) } }),
        );
        await waitFor(() => images.requests.length === inFlight, "every render to hold its unit and wait for its image");

        const other = new Database(dbPath);
        other.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        other.close();
        const filler = join(mountDir, "filler");
        fillDisk(filler, 16 * 1024);
        images.open();
        for (const res of await Promise.all(answers)) {
          expect(res.status).toBe(503);
          await res.arrayBuffer();
        }

        rmSync(filler);
        // Time passes (the test clock); the running service gives the units back: no restart.
        await s.advance(30);
        expect(s.service.services.metering.reclaimed).toBe(inFlight);
        expect(await usage(s, apiKey)).toMatchObject({ used: 0, remaining: quota });
        expect(await useUp(s, apiKey, quota + 1)).toBe(quota);
        expect(await usage(s, apiKey)).toMatchObject({ used: quota, remaining: 0 });
      } finally {
        images.stop();
        await s?.stop();
      }
    });
  }, 60_000);
});

const postgresOnly = TEST_STORE === "postgres" ? describe : describe.skip;

postgresOnly("PostgreSQL: the server stops while renders are in flight", () => {
  let pg: import("../support/postgres.ts").PostgresServer;
  let s: TestService;
  let images: ReturnType<typeof heldImages>;
  beforeAll(async () => {
    const support = await import("../support/postgres.ts");
    pg = await support.startPostgres();
    images = heldImages();
    s = await startTestService({ OG_DATABASE_URL: await support.testDatabaseUrl(pg), OG_ALLOW_PRIVATE_NETWORKS: "1" });
  });
  afterAll(async () => {
    images.stop();
    await s?.stop();
    await pg?.stop();
  });

  test("the units they held come back without a restart; the whole quota is usable, none twice", async () => {
    const quota = 12;
    const { apiKey } = await s.createAccount({ plan: "custom", quota, requests_per_second: 1000 });
    const inFlight = 6;
    const answers = Array.from({ length: inFlight }, (_, i) =>
      s.api("/api/generate", { key: apiKey, json: { title: `in flight ${i}`, logo_url: images.url(`/logo-${i}.png`) } }),
    );
    await waitFor(() => images.requests.length === inFlight, "every render to hold its unit and wait for its image");
    await pg.stop();
    images.open();
    for (const res of await Promise.all(answers)) {
      expect(res.status).toBe(503);
      await res.arrayBuffer();
    }
    await pg.start();
    await waitFor(async () => (await s.api("/readyz")).status === 200, "the store to be reachable again", { timeoutMs: 20_000 });

    await s.advance(30);
    expect(s.service.services.metering.reclaimed).toBe(inFlight);
    expect(await usage(s, apiKey)).toMatchObject({ used: 0, remaining: quota });
    expect(await useUp(s, apiKey, quota + 1)).toBe(quota);
    expect(await usage(s, apiKey)).toMatchObject({ used: quota, remaining: 0 });
  }, 60_000);
});
