import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config.ts";
import { recordEvents } from "../../../src/events/fan-out.ts";
import { silentLogger } from "../../../src/logger.ts";
import { createServices } from "../../../src/services.ts";

const dir = mkdtempSync(join(tmpdir(), "ogsmith-jobs-notice-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("SQLite: the job worker is told after a write that queued jobs commits, and only then", async () => {
  const config = loadConfig({ OG_DB_PATH: join(dir, "notice.db"), OG_ALLOW_PRIVATE_NETWORKS: "1", OG_BOOTSTRAP: "false" });
  const services = await createServices(config, { logger: silentLogger });
  try {
    const { store, outbox } = services;
    // What the listener sees when told: the pending jobs, read in its own transaction.
    const notices: number[] = [];
    store.onJobsAvailable(() => void store.listJobs({ status: "pending" }).then((jobs) => notices.push(jobs.length)));
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
    const { account } = await services.accounts.create({ email: "notice@example.com", plan: "free" });
    const generated = () => [
      outbox.draft(
        account.id,
        "image.generated",
        { request_id: "req_1", template: "event", dimensions: { width: 1200, height: 630 }, generation_time_ms: 1 },
        Date.now(),
      ),
    ];

    // An event no webhook subscribes to queues nothing: nobody is told (a counted image's usual case).
    await store.transact((tx) => recordEvents(tx, account.id, generated(), Date.now()));
    await settle();
    expect(notices).toEqual([]);

    // Subscribed: its delivery job is queued, and the listener finds it committed.
    await services.webhooks.create(account.id, {
      url: "http://127.0.0.1:9/hook",
      events: ["image.generated"],
      secret: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0",
    });
    await store.transact((tx) => recordEvents(tx, account.id, generated(), Date.now()));
    await settle();
    expect(notices).toEqual([1]);

    // Several writes in one turn of the event loop: one notice for all of them.
    await Promise.all([
      store.transact((tx) => recordEvents(tx, account.id, generated(), Date.now())),
      store.transact((tx) => recordEvents(tx, account.id, generated(), Date.now())),
    ]);
    await settle();
    expect(notices).toEqual([1, 3]);
  } finally {
    await services.close();
  }
});
