/**
 * Operational faults of the SQLite store, against the real service: another connection holding
 * the write lock (a backup, an operator's long transaction) and a full disk. Neither freezes the
 * process, neither is a 500, neither loses or double-counts a unit, and both recover without a
 * restart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { SqliteStore } from "../../src/store/sqlite/store.ts";
import { eventBody, startTestService, TEST_STORE, type TestService, useUp } from "../support/harness.ts";
import { waitFor } from "../support/wait.ts";
import { fillDisk, withSmallDisk } from "../support/disk.ts";

const sqliteOnly = TEST_STORE === "sqlite" ? describe : describe.skip;

/** A 503 with Retry-After: SERVER_BUSY for an overloaded store (a lock held past its bound), SERVICE_UNAVAILABLE for one out of reach (a full disk). */
async function expectUnavailable(res: Response, code: "SERVER_BUSY" | "SERVICE_UNAVAILABLE" = "SERVICE_UNAVAILABLE") {
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(res.headers.get("x-request-id")).toBeTruthy();
  const body = (await res.json()) as { error: boolean; code: string; message: string };
  expect(body).toMatchObject({ error: true, code });
}

async function used(s: TestService, key: string): Promise<{ used: number; remaining: number }> {
  const res = await s.api("/api/user/usage", { key });
  expect(res.status).toBe(200);
  return (await res.json()) as { used: number; remaining: number };
}

sqliteOnly("another connection holds the write lock", () => {
  // Two services: one with the product's 3 s lock wait, for what happens past it, and a patient
  // one (a minute) for what happens meanwhile: with 3 s, a loaded machine could let the wait run
  // out while that test is still checking what answers during it.
  let s: TestService;
  let holder: Database;
  let patient: TestService;
  let patientHolder: Database;
  beforeAll(async () => {
    [s, patient] = await Promise.all([startTestService(), startTestService({}, { lockWaitMs: 60_000 })]);
    holder = new Database(join(s.dir, "ogsmith.db"));
    patientHolder = new Database(join(patient.dir, "ogsmith.db"));
  });
  afterAll(async () => {
    for (const h of [holder, patientHolder]) {
      if (h.inTransaction) h.exec("ROLLBACK");
      h.close();
    }
    await Promise.all([s.stop(), patient.stop()]);
  });

  test("the event loop keeps answering while generations wait for the lock; they succeed after release", async () => {
    const { apiKey } = await patient.createAccount({ plan: "custom", quota: 10, requests_per_second: 100 });
    const store = patient.service.services.store as SqliteStore;
    const retriesBefore = store.lockRetries;

    patientHolder.exec("BEGIN IMMEDIATE");
    let generated = 0;
    const generations = Array.from({ length: 5 }, (_, i) =>
      patient.api("/api/generate", { key: apiKey, json: eventBody({ title: `waiting ${i}` }) }).then((res) => {
        generated++;
        return res;
      }),
    );
    // The generations have reached the store and wait for the lock…
    await waitFor(() => store.lockRetries > retriesBefore, "the generations to wait for the lock");
    // …and meanwhile the process answers: /healthz and a read resolve while the lock is still
    // held and no generation has been answered.
    expect((await patient.api("/healthz")).status).toBe(200);
    expect(await used(patient, apiKey)).toMatchObject({ used: 0 });
    expect(generated).toBe(0);
    expect(patientHolder.inTransaction).toBe(true);

    patientHolder.exec("COMMIT");
    for (const res of await Promise.all(generations)) {
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    expect(await used(patient, apiKey)).toMatchObject({ used: 5, remaining: 5 });
  });

  test("held past the bound: 503 SERVER_BUSY (overloaded, not out of reach), /readyz 503, nothing counted; both recover when released", async () => {
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 10, requests_per_second: 100 });
    holder.exec("BEGIN IMMEDIATE");
    const [generation, ready] = await Promise.all([s.api("/api/generate", { key: apiKey, json: eventBody() }), s.api("/readyz")]);
    expect(holder.inTransaction).toBe(true); // refused while the lock was held, not after
    await expectUnavailable(generation, "SERVER_BUSY");
    expect(ready.status).toBe(503);
    holder.exec("ROLLBACK");

    await waitFor(async () => (await s.api("/readyz")).status === 200, "/readyz to recover (its check is at most a second old)");
    expect(await used(s, apiKey)).toMatchObject({ used: 0, remaining: 10 });
    const metrics = await (await s.admin("/metrics")).text();
    expect(metrics).toMatch(/ogsmith_store_unavailable_total\{reason="busy"\} [1-9]/);
    // Exactly the quota is still there: nothing was left reserved by the refused request.
    expect(await useUp(s, apiKey, 11)).toBe(10);
  }, 30_000);
});

sqliteOnly("the disk is full", () => {
  test("generate answers 503 and counts nothing, /readyz 503; after space returns both recover and the quota is exact", async () => {
    await withSmallDisk("store-faults", async ({ mountDir }) => {
      let s: TestService | undefined;
      try {
        const dbPath = join(mountDir, "ogsmith.db");
        s = await startTestService({ OG_DB_PATH: dbPath });
        const { apiKey } = await s.createAccount({ plan: "custom", quota: 5, requests_per_second: 100 });
        const first = await s.api("/api/generate", { key: apiKey, json: eventBody() });
        expect(first.status).toBe(200);
        await first.arrayBuffer();

        // Empty the WAL into the database file so the next write needs new space, then fill the disk.
        const other = new Database(dbPath);
        other.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        other.close();
        const filler = join(mountDir, "filler");
        fillDisk(filler);

        await expectUnavailable(await s.api("/api/generate", { key: apiKey, json: eventBody({ title: "no space" }) }));
        expect((await s.api("/readyz")).status).toBe(503);
        expect((await s.api("/healthz")).status).toBe(200);

        rmSync(filler);
        await waitFor(async () => (await s!.api("/readyz")).status === 200, "/readyz to recover", { timeoutMs: 10_000 });
        expect(await used(s, apiKey)).toMatchObject({ used: 1, remaining: 4 });
        // Every remaining unit can still be used, and not one more: no unit was lost to the fault.
        expect(await useUp(s, apiKey, 6)).toBe(4);
        expect(await used(s, apiKey)).toMatchObject({ used: 5, remaining: 0 });
      } finally {
        await s?.stop();
      }
    });
  }, 60_000);
});
