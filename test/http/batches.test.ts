/**
 * Batches (/api/batches) in process (test/support/in-process.ts), drawn by real render processes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { GATED_PROCESS } from "../support/gated-render-process.ts";
import { decodePng } from "../support/png.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";
import { waitFor } from "../support/wait.ts";
import { startInProcessApp, type InProcessApp } from "../support/in-process.ts";

/**
 * Batches (docs/api.md, "Batches"): the app in process with real render processes (a
 * gated one, so a test can hold a drawing while it looks at the batch), a real webhook receiver,
 * either store. A batch validates every item first, reserves its units at once, draws its items in
 * the background (each counted once, cached, given a signed URL that a crawler then fetches for
 * nothing more), fires `image.generated` per item and `batch.completed` once; it can be canceled
 * (undrawn units back) and downloaded as a ZIP; another account sees none of it.
 */
describe("batches", () => {
  const SECRET = "batch-webhook-secret-0123456789";

  let s: InProcessApp;
  let r: TestReceiver;
  let gates: string;
  beforeAll(async () => {
    gates = mkdtempSync(join(tmpdir(), "ogsmith-batch-gates-"));
    r = await startReceiver();
    // Three render processes, a deadline no held drawing reaches: two held items leave one process
    // for the rest of the batch and for interactive requests (which go first).
    s = await startInProcessApp(
      { OG_ALLOW_PRIVATE_NETWORKS: "1", OG_RENDER_WORKERS: "3", OG_RENDER_TIMEOUT_MS: "60000" },
      { renderer: { pool: { command: GATED_PROCESS } } },
    );
  });
  afterAll(async () => {
    // Whatever a failed test left held goes on, so the service can stop.
    for (const name of ["a", "b", "c", "d", "e", "f"]) writeFileSync(join(gates, `${name}.release`), "");
    await s?.stop();
    await r?.stop();
    rmSync(gates, { recursive: true, force: true });
  });

  /** A drawing of this item blocks until `release(name)`. */
  const held = (name: string) => ({ template: "event", title: `hold:${join(gates, name)}`, width: 400, height: 210 });
  const release = (name: string) => writeFileSync(join(gates, `${name}.release`), "");
  const started = (name: string) => existsSync(join(gates, `${name}.started`));

  async function account(quota = 1000) {
    const { apiKey, accountId } = await s.createAccount({ plan: "custom", quota, requests_per_second: 10_000 });
    const key = await (await s.api("/api/signing-keys", { key: apiKey, json: {} })).json();
    return { key: apiKey, accountId, signingKeyId: key.id as string };
  }

  const createBatch = (key: string, json: unknown) => s.api("/api/batches", { key, json });
  const getBatch = async (key: string, id: string, cursor?: string) => (await s.api(`/api/batches/${id}${cursor ? `?cursor=${cursor}` : ""}`, { key })).json();
  const used = async (key: string) => (await (await s.api("/api/user/usage", { key })).json()).used as number;
  async function settled(key: string, id: string) {
    await waitFor(async () => ["done", "canceled"].includes((await getBatch(key, id)).status), `batch ${id} settled`, { timeoutMs: 25_000, intervalMs: 20 });
    return getBatch(key, id);
  }

  test("a batch end to end: drawn in the background, counted once each, signed URLs served free, its webhooks signed", async () => {
    const { key, accountId } = await account();
    const template = await s.api("/api/templates", {
      key,
      json: {
        id: "promo",
        html: '<div class="flex w-full h-full items-center justify-center bg-[#112233] text-white"><h1 style="font-size:60px">{{title}}</h1></div>',
        fields: [{ name: "title", type: "text", required: true }],
        sizes: { og: { width: 600, height: 315 }, square: { width: 400, height: 400 } },
      },
    });
    expect(template.status).toBe(201);
    const hook = await s.api("/api/webhooks", { key, json: { url: r.url("/batch"), events: ["image.generated", "batch.completed"], secret: SECRET } });
    expect(hook.status).toBe(201);

    const items = [
      { template: "event", title: "One", width: 400, height: 210 },
      { template: "promo", title: "Two", size: "og" },
      { template: "promo", title: "Two", size: "square" },
      { template: "event", title: "Three", format: "jpeg", width: 400, height: 210 },
    ];
    const res = await createBatch(key, { items });
    expect(res.status).toBe(202);
    const created = await res.json();
    expect(created).toEqual({ id: expect.stringMatching(/^bat_[A-Za-z0-9]{20}$/), status: "queued", total: 4, created_at: expect.any(String) });

    const batch = await settled(key, created.id);
    expect(batch).toMatchObject({ id: created.id, status: "done", total: 4, done: 4, failed: 0, finished_at: expect.any(String), next_cursor: null });
    expect(batch.items.map((item: { index: number; status: string }) => [item.index, item.status])).toEqual([
      [0, "done"],
      [1, "done"],
      [2, "done"],
      [3, "done"],
    ]);
    expect(await used(key)).toBe(4);

    // The URLs: the account template's with `v` and its size; each served from the cache and counted no more.
    const urls = batch.items.map((item: { url: string }) => new URL(item.url));
    expect(urls[1].searchParams.get("v")).toBe("1");
    expect(urls[2].searchParams.get("size")).toBe("square");
    expect(urls[3].pathname.endsWith(".jpg")).toBe(true);
    const sizes = [];
    for (const url of urls.slice(0, 3)) {
      const fetched = await s.fetch(s.url + url.pathname + url.search);
      expect(fetched.status).toBe(200);
      const png = decodePng(new Uint8Array(await fetched.arrayBuffer()));
      sizes.push([png.width, png.height]);
    }
    expect(sizes).toEqual([
      [400, 210],
      [600, 315],
      [400, 400],
    ]);
    expect(await used(key)).toBe(4);

    // image.generated per item (with its batch and index), batch.completed once; all signed.
    await r.waitFor(() => r.at("/batch").length >= 5, "5 deliveries");
    for (const delivery of r.at("/batch")) {
      expect(delivery.headers["x-og-signature"]).toBe(`sha256=${createHmac("sha256", SECRET).update(delivery.body).digest("hex")}`);
    }
    const events = r.events("/batch");
    const generated = events.filter((e) => e.event === "image.generated");
    expect(generated.map((e) => e.data.batch_index).sort()).toEqual([0, 1, 2, 3]);
    for (const e of generated) expect(e.data).toMatchObject({ batch_id: created.id, request_id: expect.stringMatching(/^req_/), template: expect.any(String) });
    expect(generated.find((e) => e.data.batch_index === 2)!.data.dimensions).toEqual({ width: 400, height: 400 });
    const completed = events.filter((e) => e.event === "batch.completed");
    expect(completed.map((e) => e.data)).toEqual([{ batch_id: created.id, total: 4, done: 4, failed: 0 }]);

    const list = await (await s.api("/api/batches", { key })).json();
    expect(list.data.map((b: { id: string; status: string }) => [b.id, b.status])).toEqual([[created.id, "done"]]);
    expect(accountId).toMatch(/^acc_/);
  });

  describe("refusals: nothing is queued", () => {
    test("an invalid item is a 400 naming it; no items, too many and a non-object are refused by name", async () => {
      const { key } = await account();
      const bad = await createBatch(key, {
        items: [{ title: "ok" }, { title: "ok" }, { title: "ok" }, { template: "event" }, { template: "nope", title: "x" }, { title: "x", size: "square" }],
      });
      expect(bad.status).toBe(400);
      const body = await bad.json();
      expect(body.code).toBe("VALIDATION_ERROR");
      expect(body.details.map((d: { field: string }) => d.field)).toEqual(["items[3].title", "items[4].template", "items[5].size"]);
      for (const items of [[], Array.from({ length: 1001 }, () => ({ title: "x" })), "x"]) {
        const res = await createBatch(key, { items });
        expect(res.status).toBe(400);
        expect((await res.json()).details.map((d: { field: string }) => d.field)).toEqual(["items"]);
      }
      expect((await (await s.api("/api/batches", { key })).json()).data).toEqual([]);
      expect(await used(key)).toBe(0);
    });

    test("without a signing key, or with another account's, the 400 names signing_key_id", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      const none = await createBatch(apiKey, { items: [{ title: "x" }] });
      expect(none.status).toBe(400);
      expect((await none.json()).details.map((d: { field: string }) => d.field)).toEqual(["signing_key_id"]);
      const other = await account();
      const foreign = await createBatch(apiKey, { items: [{ title: "x" }], signing_key_id: other.signingKeyId });
      expect(foreign.status).toBe(400);
      expect((await foreign.json()).details.map((d: { field: string }) => d.field)).toEqual(["signing_key_id"]);
    });

    test("less quota left than the batch needs is a 429 QUOTA_EXCEEDED, nothing reserved", async () => {
      const { key } = await account(10);
      for (let i = 0; i < 3; i++) expect((await s.api("/api/generate", { key, json: { title: `g${i}`, width: 400, height: 210 } })).status).toBe(200);
      const res = await createBatch(key, { items: Array.from({ length: 8 }, (_, i) => ({ title: `b${i}` })) });
      expect(res.status).toBe(429);
      expect((await res.json()).code).toBe("QUOTA_EXCEEDED");
      expect((await (await s.api("/api/batches", { key })).json()).data).toEqual([]);
      // All 7 are still there: the refused batch held none.
      const fits = await createBatch(key, { items: Array.from({ length: 7 }, (_, i) => ({ title: `c${i}`, width: 400, height: 210 })) });
      expect(fits.status).toBe(202);
      await settled(key, (await fits.json()).id);
      expect(await used(key)).toBe(10);
    });

    test("a body over 5 MiB is 413", async () => {
      const { key } = await account();
      const res = await createBatch(key, { items: [{ title: "x".repeat(6 * 1024 * 1024) }] });
      expect(res.status).toBe(413);
    });
  });

  test("the reservation holds while the batch runs: interactive generates get only what is left", async () => {
    const { key } = await account(10);
    const items = [held("a"), held("b"), ...Array.from({ length: 6 }, (_, i) => ({ title: `r${i}`, width: 400, height: 210 }))];
    const res = await createBatch(key, { items });
    expect(res.status).toBe(202);
    const { id } = await res.json();
    await waitFor(() => started("a") || started("b"), "a held item drawing");
    // 8 of 10 reserved: two generates, then 429, whatever has been drawn so far.
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const g = await s.api("/api/generate", { key, json: { title: `i${i}`, width: 400, height: 210 } });
      await g.arrayBuffer();
      answers.push(g.status);
    }
    expect(answers, JSON.stringify(await getBatch(key, id))).toEqual([200, 200, 429]);
    release("a");
    release("b");
    const batch = await settled(key, id);
    expect({ done: batch.done, failed: batch.failed }).toEqual({ done: 8, failed: 0 });
    expect(await used(key)).toBe(10);
  });

  test("a render that fails leaves its item failed with the error, and its unit back", async () => {
    const { key } = await account(5);
    // An image URL nothing answers: the fetch fails, the item fails, the rest draw.
    const res = await createBatch(key, {
      items: [
        { template: "blog", title: "Fine", author_name: "A", width: 400, height: 210 },
        { template: "blog", title: "Broken", author_name: "A", author_avatar_url: r.url("/missing.png"), width: 400, height: 210 },
      ],
    });
    r.respond({ status: 404 }, "/missing.png");
    expect(res.status).toBe(202);
    const batch = await settled(key, (await res.json()).id);
    expect({ status: batch.status, done: batch.done, failed: batch.failed }).toEqual({ status: "done", done: 1, failed: 1 });
    expect(batch.items[1]).toEqual({ index: 1, status: "failed", error: expect.stringMatching(/^IMAGE_FETCH_FAILED/) });
    expect(await used(key)).toBe(1);
    // The failed item's unit is back: 4 more fit.
    const more = await createBatch(key, { items: Array.from({ length: 4 }, (_, i) => ({ title: `m${i}`, width: 400, height: 210 })) });
    expect(more.status).toBe(202);
  });

  test("cancel: items not yet drawn are released, drawn ones stay; the one drawing then counts nothing", async () => {
    const { key } = await account(20);
    const items = [
      { title: "first", width: 400, height: 210 },
      held("c"),
      held("d"),
      ...Array.from({ length: 7 }, (_, i) => ({ title: `q${i}`, width: 400, height: 210 })),
    ];
    const res = await createBatch(key, { items });
    const { id } = await res.json();
    await waitFor(async () => (await getBatch(key, id)).done >= 1 && (started("c") || started("d")), "the first item drawn and a held one drawing");
    const canceled = await s.api(`/api/batches/${id}`, { key, method: "DELETE" });
    expect(canceled.status).toBe(200);
    const body = await canceled.json();
    expect(body.status).toBe("canceled");
    const doneAtCancel = body.done as number;
    expect(body.done + body.failed).toBe(10);
    release("c");
    release("d");
    const batch = await getBatch(key, id);
    expect(
      batch.items.filter((i: { status: string }) => i.status === "failed").every((i: { error: string }) => i.error === "canceled before it was drawn"),
    ).toBe(true);
    // The held drawings finish after the cancel and are not counted; the canceled units are free again.
    await waitFor(async () => s.service.drawer.active === 0, "drawings settle");
    expect(await used(key)).toBe(doneAtCancel);
    const after = await getBatch(key, id);
    expect({ status: after.status, done: after.done }).toEqual({ status: "canceled", done: doneAtCancel });
    const refill = await createBatch(key, { items: Array.from({ length: 20 - doneAtCancel }, (_, i) => ({ title: `x${i}`, width: 400, height: 210 })) });
    expect(refill.status).toBe(202);
    // Canceling again answers the batch as it is.
    expect((await (await s.api(`/api/batches/${id}`, { key, method: "DELETE" })).json()).status).toBe("canceled");
  });

  test("the archive is a ZIP of the drawn images, by index", async () => {
    const { key } = await account();
    const res = await createBatch(key, {
      items: [
        { title: "zip 0", width: 400, height: 210 },
        { template: "blog", title: "Broken", author_name: "A", author_avatar_url: r.url("/gone.png"), width: 400, height: 210 },
        { title: "zip 2", width: 500, height: 300 },
        { title: "zip 3", width: 400, height: 210, format: "webp" },
      ],
    });
    r.respond({ status: 404 }, "/gone.png");
    const { id } = await res.json();
    await settled(key, id);
    const archive = await s.api(`/api/batches/${id}/archive`, { key });
    expect(archive.status).toBe(200);
    expect(archive.headers.get("content-type")).toBe("application/zip");
    const files = unzipSync(new Uint8Array(await archive.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(["0000.png", "0002.png", "0003.webp"]);
    const png = decodePng(files["0002.png"]!);
    expect([png.width, png.height]).toEqual([500, 300]);
    expect(await used(key)).toBe(3); // the archive counts nothing
  });

  test("pages of 100 items with next_cursor", async () => {
    const { key } = await account();
    // Identical items: one render, the rest from the cache; each still counted.
    const res = await createBatch(key, { items: Array.from({ length: 150 }, () => ({ title: "same", width: 400, height: 210 })) });
    const { id } = await res.json();
    const first = await settled(key, id);
    expect(first.items.length).toBe(100);
    expect(first.next_cursor).toBe("100");
    const second = await getBatch(key, id, first.next_cursor);
    expect(second.items.map((i: { index: number }) => i.index)).toEqual(Array.from({ length: 50 }, (_, i) => 100 + i));
    expect(second.next_cursor).toBeNull();
    expect(await used(key)).toBe(150);
    const badCursor = await s.api(`/api/batches/${id}?cursor=abc`, { key });
    expect(badCursor.status).toBe(400);
  });

  test("another account's batch is 404 on every route, and absent from its list", async () => {
    const owner = await account();
    const other = await account();
    const { id } = await (await createBatch(owner.key, { items: [{ title: "mine", width: 400, height: 210 }] })).json();
    await settled(owner.key, id);
    for (const [path, method] of [
      [`/api/batches/${id}`, "GET"],
      [`/api/batches/${id}`, "DELETE"],
      [`/api/batches/${id}/archive`, "GET"],
    ] as const) {
      const res = await s.api(path, { key: other.key, method });
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe("NOT_FOUND");
    }
    expect((await (await s.api("/api/batches", { key: other.key })).json()).data).toEqual([]);
    expect((await getBatch(owner.key, id)).status).toBe("done");
  });
});
