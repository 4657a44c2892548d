/**
 * The serving process's cache of account font files (AccountFontService.bytes): bounded by bytes,
 * the least recently used file out first, a file larger than the whole bound never kept. Each
 * file is removed from the store after it is read, so what `bytes` still returns came from memory.
 */
import { afterAll, expect, test } from "bun:test";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { systemClock } from "../../../src/clock.ts";
import { AccountFontService } from "../../../src/render/fonts/account-fonts.ts";
import type { Store } from "../../../src/store/types.ts";
import { openTestStore } from "../../support/stores.ts";
import { pixelFont } from "../../support/fonts.ts";

const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

async function openWithAccount() {
  const store = await openTestStore();
  stores.push(store);
  const { account } = await new AccountService(store, systemClock).create({ email: "fonts@example.com", plan: "free" });
  return { store, account };
}

async function setUp(cacheBytes: (sizes: number[]) => number) {
  const { store, account } = await openWithAccount();
  const files = ["Alpha", "Beta", "Gamma"].map((family) => pixelFont(family));
  const service = new AccountFontService(store.fonts, systemClock, cacheBytes(files.map((f) => f.byteLength)));
  const uploaded = [];
  for (const [i, data] of files.entries()) {
    uploaded.push(await service.upload(account.id, { file: new Blob([new Uint8Array(data)]), family: ["Alpha", "Beta", "Gamma"][i] }));
  }
  const digests = files.map((data) => new Bun.CryptoHasher("sha256").update(data).digest("hex"));
  // Gone from the store: only the cache can answer now.
  for (const font of uploaded) expect(await store.fonts.delete(account.id, font.id)).toBe(true);
  return { service, digests };
}

test("keeps the most recently used files within its bound of bytes", async () => {
  const { service, digests } = await setUp((sizes) => 2 * Math.max(...sizes));
  const [alpha, beta, gamma] = digests as [string, string, string];
  // Room for two: Alpha, the first uploaded, is out.
  expect([...(await service.bytes([alpha, beta, gamma])).keys()]).toEqual([beta, gamma]);
});

test("a read makes a file the most recently used", async () => {
  const { store, account } = await openWithAccount();
  const files = ["Alpha", "Beta", "Gamma"].map((family) => pixelFont(family));
  const service = new AccountFontService(store.fonts, systemClock, 2 * Math.max(...files.map((f) => f.byteLength)));
  const digests = files.map((data) => new Bun.CryptoHasher("sha256").update(data).digest("hex"));
  const ids: string[] = [];
  for (const [i, data] of files.slice(0, 2).entries())
    ids.push((await service.upload(account.id, { file: new Blob([new Uint8Array(data)]), family: ["Alpha", "Beta"][i] })).id);
  await service.bytes([digests[0]!]); // Alpha read: Beta is now the least recently used
  ids.push((await service.upload(account.id, { file: new Blob([new Uint8Array(files[2]!)]), family: "Gamma" })).id);
  for (const id of ids) await store.fonts.delete(account.id, id);
  expect([...(await service.bytes(digests)).keys()]).toEqual([digests[0], digests[2]]);
});

test("a file larger than the whole bound is not kept", async () => {
  const { service, digests } = await setUp((sizes) => Math.min(...sizes) - 1);
  expect((await service.bytes(digests)).size).toBe(0);
});
