/**
 * Done units counted in groups (src/metering/counting.ts `countGroup`, src/metering/count-queue.ts)
 * and month reads shared only with callers that arrived before the query was sent (SharedReads):
 * concurrent counts stay exact against the quota, each decision sees its own counters, and on
 * PostgreSQL they share transactions. Runs on the store OG_TEST_STORE names; the grouping
 * itself is PostgreSQL's.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { CountQueue } from "../../../src/metering/count-queue.ts";
import { SharedReads } from "../../../src/store/postgres/usage.ts";
import type { Store, UsageCounters, UsageDecision } from "../../../src/store/types.ts";
import { openTestStore, seedAccount } from "../../support/stores.ts";

let store: Store;
let counts: CountQueue;
const NOW = Date.UTC(2030, 0, 1);
const PERIOD = "2030-01";
beforeEach(async () => {
  store = await openTestStore();
  counts = new CountQueue(store);
});
afterEach(async () => {
  await store.close();
});

const account = (tag: string) => seedAccount(store, tag, NOW);

/**
 * PostgreSQL: transaction ids handed out so far (each writing transaction takes one, and so does
 * this read); undefined on SQLite, which counts each unit in its own transaction.
 */
async function transactionIds(): Promise<number | undefined> {
  const sql = (store as unknown as { sql?: (strings: TemplateStringsArray) => Promise<{ n: string }[]> }).sql;
  if (store.kind !== "postgres" || !sql) return undefined;
  return Number((await sql`select txid_current() as n`)[0]!.n);
}

test("50 concurrent counts against 17 units left: exactly 17 counted, each decision on distinct counters, the 80 % mark once", async () => {
  const accountId = await account("group");
  for (let i = 0; i < 3; i++)
    await counts.count({ accountId, period: PERIOD, quota: 20, day: `${PERIOD}-01`, now: NOW, decide: () => ({ marks: [], events: [] }) });
  const seen: number[] = [];
  const decide = (after: UsageCounters): UsageDecision => {
    seen.push(after.used);
    return after.warned80At === null && after.used * 100 >= 80 * 20 ? { marks: ["warned80At"], events: [] } : { marks: [], events: [] };
  };
  const before = await transactionIds();
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => counts.count({ accountId, period: PERIOD, quota: 20, day: `${PERIOD}-02`, now: NOW + i, decide })),
  );
  const counted = results.filter((r) => r !== undefined);
  expect(counted.length).toBe(17);
  expect(counted.map((r) => r!.used).sort((a, b) => a - b)).toEqual(Array.from({ length: 17 }, (_, i) => 4 + i));
  expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 17 }, (_, i) => 4 + i));
  // The unit that reached 16 set the mark (its counters are those before its own marks); every unit after it saw it set.
  expect(
    counted
      .filter((r) => r!.warned80At !== null)
      .map((r) => r!.used)
      .sort((a, b) => a - b),
  ).toEqual([17, 18, 19, 20]);
  expect(await store.usage(accountId, PERIOD)).toMatchObject({ used: 20, reserved: 0 });
  expect((await store.usage(accountId, PERIOD))!.warned80At).not.toBeNull();
  expect(await store.dailyUsage(accountId, PERIOD)).toEqual([
    { day: `${PERIOD}-01`, count: 3 },
    { day: `${PERIOD}-02`, count: 17 },
  ]);
  // On PostgreSQL the 50 counts shared a few transactions (each waited for the one in flight).
  if (before !== undefined) expect((await transactionIds())! - before - 1).toBeLessThan(10);
});

test("one batch over two accounts and two days: every group counted on its own counters", async () => {
  const a = await account("ga");
  const b = await account("gb");
  const none = () => ({ marks: [], events: [] });
  const results = await Promise.all([
    ...Array.from({ length: 6 }, (_, i) =>
      counts.count({ accountId: a, period: PERIOD, quota: 100, day: `${PERIOD}-0${1 + (i % 2)}`, now: NOW, decide: none }),
    ),
    ...Array.from({ length: 4 }, () => counts.count({ accountId: b, period: PERIOD, quota: 3, day: `${PERIOD}-05`, now: NOW, decide: none })),
  ]);
  expect(results.slice(0, 6).every((r) => r !== undefined)).toBe(true);
  expect(results.slice(6).filter((r) => r !== undefined).length).toBe(3);
  expect((await store.usage(a, PERIOD))?.used).toBe(6);
  expect((await store.usage(b, PERIOD))?.used).toBe(3);
  expect(await store.dailyUsage(a, PERIOD)).toEqual([
    { day: `${PERIOD}-01`, count: 3 },
    { day: `${PERIOD}-02`, count: 3 },
  ]);
  expect(await store.dailyUsage(b, PERIOD)).toEqual([{ day: `${PERIOD}-05`, count: 3 }]);
});

test("events of grouped units are recorded in order, one per counted unit", async () => {
  const accountId = await account("events");
  await store.createWebhook(
    {
      id: "wh_events",
      accountId,
      url: "https://example.com/h",
      events: ["image.generated"],
      secret: "s",
      status: "enabled",
      disabledReason: null,
      createdAt: NOW,
      updatedAt: NOW,
    },
    20,
  );
  const decide = (after: UsageCounters): UsageDecision => ({ marks: [], events: [{ type: "image.generated", data: `{"used":${after.used}}` }] });
  await Promise.all(Array.from({ length: 12 }, (_, i) => counts.count({ accountId, period: PERIOD, quota: 10, day: `${PERIOD}-01`, now: NOW + i, decide })));
  const jobs = (await store.listJobs({ status: "pending" })).filter((job) => job.webhookId === "wh_events");
  const used = await Promise.all(jobs.map(async (job) => JSON.parse((await store.getEvent(job.eventId!))!.data).used as number));
  expect(used.sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
});

test("a shared read never answers from a query sent before its caller arrived", async () => {
  const reads = new SharedReads<number>();
  let value = 0;
  const pending: ((v: number) => void)[] = [];
  // A query answers what the store held when it was sent.
  const query = () => {
    const held = value;
    return new Promise<number>((resolve) => pending.push(() => resolve(held)));
  };
  const first = reads.read("k", query);
  value = 1; // a count committed after the first query was sent
  const second = reads.read("k", query);
  const third = reads.read("k", query);
  expect(reads.queries).toBe(1);
  pending.shift()!(0);
  expect(await first).toBe(0);
  // The second and third share the query sent after the first settled, which sees the count.
  await Promise.resolve();
  await Promise.resolve();
  expect(reads.queries).toBe(2);
  pending.shift()!(0);
  expect(await second).toBe(1);
  expect(await third).toBe(1);
  // Nothing in flight: the next read sends its own query.
  const fourth = reads.read("k", query);
  expect(reads.queries).toBe(3);
  pending.shift()!(0);
  expect(await fourth).toBe(1);
});
