/**
 * The TemplateStore contract, against both stores (describeEachStore): versions numbered from 1,
 * the newest 100 kept, the per-account limit, per-account ids and isolation, concurrent updates
 * with distinct versions, deletion with every version.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { TestClock } from "../../../src/clock.ts";
import type { NewTemplateVersion } from "../../../src/store/types.ts";
import type { Store } from "../../../src/store/types.ts";
import { describeEachStore, openTestStore } from "../../support/stores.ts";

let store: Store;
let clock: TestClock;
const newAccount = async () => (await new AccountService(store, clock).create({ email: `t${Math.random()}@example.com`, plan: "free" })).account.id;
const draft = (accountId: string, id: string, n = 0): NewTemplateVersion => ({
  accountId,
  id,
  definition: JSON.stringify({ id, n }),
  digest: `${id}-${n}`.padEnd(64, "0"),
  now: clock.now(),
});

describeEachStore(() => {
  beforeAll(async () => {
    store = await openTestStore();
    clock = new TestClock(Date.UTC(2031, 0, 1));
  });
  afterAll(() => store.close());

  describe("TemplateStore", () => {
    test("create is version 1; update adds versions; get reads the latest or a given one; head skips the definition", async () => {
      const a = await newAccount();
      const created = await store.templates.create(draft(a, "promo", 1), 50);
      expect(created).toMatchObject({
        accountId: a,
        id: "promo",
        version: 1,
        definition: '{"id":"promo","n":1}',
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      await clock.advance(1);
      const updated = await store.templates.update(draft(a, "promo", 2), 100);
      expect(updated).toMatchObject({ version: 2, definition: '{"id":"promo","n":2}', createdAt: clock.now() - 1000, updatedAt: clock.now() });
      expect((await store.templates.get(a, "promo"))?.version).toBe(2);
      expect((await store.templates.get(a, "promo", 1))?.definition).toBe('{"id":"promo","n":1}');
      expect(await store.templates.get(a, "promo", 3)).toBeUndefined();
      expect(await store.templates.head(a, "promo")).toEqual({ latest: 2, found: { version: 2, digest: draft(a, "promo", 2).digest, createdAt: clock.now() } });
      expect(await store.templates.head(a, "promo", 7)).toEqual({ latest: 2, found: undefined });
      expect(await store.templates.head(a, "nope")).toBeUndefined();
      expect((await store.templates.versions(a, "promo"))?.map((v) => v.version)).toEqual([1, 2]);
    });

    test("an id taken in the account is 'exists'; another account may use it; nothing crosses accounts", async () => {
      const a = await newAccount();
      const b = await newAccount();
      expect(await store.templates.create(draft(a, "card"), 50)).toMatchObject({ version: 1 });
      expect(await store.templates.create(draft(a, "card"), 50)).toBe("exists");
      expect(await store.templates.create(draft(b, "card", 9), 50)).toMatchObject({ accountId: b, version: 1 });
      expect(await store.templates.update(draft(b, "other"), 100)).toBeUndefined();
      expect(await store.templates.get(b, "card")).toMatchObject({ definition: '{"id":"card","n":9}' });
      expect(await store.templates.versions(b, "missing")).toBeUndefined();
      expect(await store.templates.delete(b, "card")).toBe(true);
      expect(await store.templates.delete(b, "card")).toBe(false);
      expect(await store.templates.get(a, "card")).toMatchObject({ accountId: a });
      expect(await store.templates.get(b, "card")).toBeUndefined();
      expect(await store.templates.versions(b, "card")).toBeUndefined();
    });

    test("at most maxPerAccount templates; list gives each template's latest version by id", async () => {
      const a = await newAccount();
      for (const id of ["c", "a", "b"]) expect(await store.templates.create(draft(a, id), 3)).toMatchObject({ version: 1 });
      expect(await store.templates.create(draft(a, "d"), 3)).toBe("limit_reached");
      await store.templates.update(draft(a, "b", 5), 100);
      expect(await store.templates.count(a)).toBe(3);
      expect((await store.templates.list(a)).map((t) => [t.id, t.version])).toEqual([
        ["a", 1],
        ["b", 2],
        ["c", 1],
      ]);
      // Listings leave the definitions out (up to 256 KiB each) and carry their digests.
      expect((await store.templates.list(a))[1]).toEqual({
        accountId: a,
        id: "b",
        version: 2,
        digest: draft(a, "b", 5).digest,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      await store.templates.delete(a, "c");
      expect(await store.templates.create(draft(a, "d"), 3)).toMatchObject({ version: 1 });
    });

    test("only the newest keepVersions versions stay; a deleted and re-created template starts again at 1", async () => {
      const a = await newAccount();
      await store.templates.create(draft(a, "many"), 50);
      for (let i = 2; i <= 7; i++) await store.templates.update(draft(a, "many", i), 3);
      expect((await store.templates.versions(a, "many"))?.map((v) => v.version)).toEqual([5, 6, 7]);
      expect(await store.templates.get(a, "many", 4)).toBeUndefined();
      expect(await store.templates.head(a, "many", 4)).toEqual({ latest: 7, found: undefined });
      await store.templates.delete(a, "many");
      expect(await store.templates.create(draft(a, "many", 100), 50)).toMatchObject({ version: 1 });
      expect((await store.templates.versions(a, "many"))?.map((v) => v.version)).toEqual([1]);
    });

    test("concurrent updates each get a version of their own", async () => {
      const a = await newAccount();
      await store.templates.create(draft(a, "race"), 50);
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => store.templates.update(draft(a, "race", i), 100)));
      expect(results.map((r) => r!.version).sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
      expect((await store.templates.head(a, "race"))?.latest).toBe(13);
    });

    test("concurrent creations never pass the limit", async () => {
      const a = await newAccount();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.templates.create(draft(a, `t${i}`), 4)));
      expect(results.filter((r) => typeof r === "object").length).toBe(4);
      expect(await store.templates.count(a)).toBe(4);
    });
  });
});
