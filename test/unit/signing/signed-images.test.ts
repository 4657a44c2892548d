/**
 * The signed-image service without a server: a real store (of the kind OG_TEST_STORE names), the
 * test clock, the real metering, signing keys and rate limiter, and a small stand-in renderer
 * that addresses an image by its request and counts what it draws (the counting and caching are
 * under test here, not the drawing). The store is wrapped to count the calls made through it, so
 * "a counted image's repeat asks the store nothing but its key" is a fact the test reads.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { TestClock } from "../../../src/clock.ts";
import { ApiError } from "../../../src/errors.ts";
import { Outbox } from "../../../src/events/outbox.ts";
import { enforceRateLimit } from "../../../src/http/rate-limit.ts";
import { Metering } from "../../../src/metering/quota.ts";
import { SlidingWindowLimiter } from "../../../src/metering/rate-limit.ts";
import type { PreparedRender } from "../../../src/render/render-front.ts";
import type { RenderRequest, RenderResult } from "../../../src/render/types.ts";
import { buildSignedUrl } from "../../../src/signing/index.ts";
import { SigningKeyService } from "../../../src/signing/keys.ts";
import { type AdmittedImage, SignedImageService, type SignedImageRenderer } from "../../../src/signing/signed-images.ts";
import type { Store } from "../../../src/store/types.ts";
import { AccountTemplateService } from "../../../src/templates/account-templates.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import { openTestStore } from "../../support/stores.ts";

const START = Date.UTC(2031, 2, 10, 12);

/** The real store, with each method call counted by name. */
function countCalls(store: Store): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const counted = new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function" || typeof name !== "string") return value;
      return (...args: unknown[]) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
  return { store: counted, calls };
}

/** Addresses an image by what decides it and draws each address once, like the service's render cache. */
function standInRenderer(): SignedImageRenderer & { drawn: string[] } {
  const drawings = new Map<string, Promise<RenderResult>>();
  const drawn: string[] = [];
  const addressOf = (request: RenderRequest) =>
    createHash("sha256")
      .update(JSON.stringify([request.template, request.theme, request.fields, request.width, request.height, request.format, request.quality]))
      .digest("hex");
  const draw = async (request: RenderRequest, contentAddress: string): Promise<RenderResult> => {
    drawn.push(contentAddress);
    const bytes = new TextEncoder().encode(contentAddress);
    return { bytes, contentType: "image/png", width: request.width, height: request.height, generationTimeMs: 1, contentAddress, cached: false };
  };
  const prepare = async (request: RenderRequest): Promise<PreparedRender> => {
    const contentAddress = addressOf(request);
    return {
      contentAddress,
      render: () => {
        let drawing = drawings.get(contentAddress);
        if (!drawing) drawings.set(contentAddress, (drawing = draw(request, contentAddress)));
        return drawing;
      },
    };
  };
  return { drawn, prepare, render: async (request) => (await prepare(request)).render(), close: async () => {} };
}

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
});

async function setup(limits: { quota?: number; requestsPerSecond?: number } = {}) {
  const real = await openTestStore();
  const { store, calls } = countCalls(real);
  const clock = new TestClock(START);
  const metering = new Metering(store, clock, new Outbox());
  opened.push(async () => {
    await metering.close();
    await real.close();
  });
  const accounts = new AccountService(store, clock);
  const { account } = await accounts.create({
    email: "images@example.com",
    plan: "custom",
    quota: limits.quota ?? 100,
    requestsPerSecond: limits.requestsPerSecond ?? 100,
  });
  const signingKeys = new SigningKeyService(store, clock);
  const key = await signingKeys.create(account.id);
  const renderer = standInRenderer();
  const limiter = new SlidingWindowLimiter(clock);
  /** One instance's service; a second one over the same store stands for another instance. */
  const newService = () =>
    new SignedImageService({
      metering,
      signingKeys,
      accountTemplates: new AccountTemplateService(store.templates, clock),
      clock,
      renderer,
      templates: createTemplateRegistry(),
    });
  const images = newService();
  const urlFor = (params: Record<string, string>) =>
    buildSignedUrl({ baseUrl: "http://images.test", keyId: key.id, secret: key.secret, template: "event", ext: "png", params });
  /** What the route does: admit, then deliver with the account's rate limit. */
  const fetchImage = async (url: string, service = images): Promise<RenderResult> => {
    const image: AdmittedImage = await service.admit(new URL(url));
    return service.deliver(image, { requestId: "req_unit", meetRateLimit: (rateLimitKey, owner) => enforceRateLimit(limiter, rateLimitKey, owner, {}) });
  };
  const addressOf = async (url: string) => (await images.admit(new URL(url))).prepared.contentAddress;
  const usage = async (period = metering.currentPeriod()) => (await real.usage(account.id, period)) ?? { used: 0, reserved: 0 };
  /** The store methods called since the last look, by name. */
  const storeCalls = () => {
    const seen = Object.fromEntries(calls);
    calls.clear();
    return seen;
  };
  return { store: real, clock, metering, accounts, account, signingKeys, key, renderer, newService, urlFor, fetchImage, addressOf, usage, storeCalls };
}

async function refusal(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error.code;
}

const COUNTING_CALLS = ["isImageCounted", "listApiKeys", "reserveUnit", "transact", "releaseUnit"];
const countingCallsIn = (calls: Record<string, number>) => Object.keys(calls).filter((name) => COUNTING_CALLS.includes(name));

describe("counting once per image per month", () => {
  test("20 concurrent fetches of one new image count it once, with one counting attempt, and draw it once", async () => {
    const { fetchImage, urlFor, usage, storeCalls, renderer } = await setup();
    const url = urlFor({ title: "Launch day" });
    storeCalls();
    const results = await Promise.all(Array.from({ length: 20 }, () => fetchImage(url)));
    expect(new Set(results.map((result) => result.contentAddress)).size).toBe(1);
    expect(await usage()).toMatchObject({ used: 1, reserved: 0 });
    const calls = storeCalls();
    expect(calls.isImageCounted).toBe(1);
    expect(calls.reserveUnit).toBe(1);
    expect(calls.transact).toBe(1);
    expect(renderer.drawn.length).toBe(1);
  });

  test("a repeat in the same month is not counted again and calls the store only to resolve its key", async () => {
    const { fetchImage, urlFor, usage, storeCalls, clock } = await setup();
    const url = urlFor({ title: "Repeat" });
    await fetchImage(url);
    expect(await usage()).toMatchObject({ used: 1, reserved: 0 });
    storeCalls();
    for (let i = 0; i < 5; i++) {
      await clock.advance(3_600);
      await fetchImage(url);
    }
    // touchSigningKey: last_used_at, written at most once a minute per key.
    expect(storeCalls()).toEqual({ findSigningKey: 5, touchSigningKey: 5 });
    expect(await usage()).toMatchObject({ used: 1, reserved: 0 });
  });

  test("another instance remembers nothing yet: it asks the store once, which says the image is counted", async () => {
    const { fetchImage, urlFor, usage, storeCalls, newService } = await setup();
    const url = urlFor({ title: "Two instances" });
    await fetchImage(url);
    const other = newService();
    storeCalls();
    await fetchImage(url, other);
    expect(countingCallsIn(storeCalls())).toEqual(["isImageCounted"]);
    await fetchImage(url, other);
    expect(countingCallsIn(storeCalls())).toEqual([]);
    expect(await usage()).toMatchObject({ used: 1, reserved: 0 });
  });

  test("a new calendar month counts the same image again", async () => {
    const { fetchImage, urlFor, usage, storeCalls, clock, metering } = await setup();
    const url = urlFor({ title: "Monthly" });
    await fetchImage(url);
    const march = metering.currentPeriod();
    await clock.advance(31 * 86_400);
    expect(metering.currentPeriod()).not.toBe(march);
    storeCalls();
    await fetchImage(url);
    const calls = storeCalls();
    expect(calls.isImageCounted).toBe(1);
    expect(calls.transact).toBe(1);
    expect(await usage(march)).toMatchObject({ used: 1, reserved: 0 });
    expect(await usage()).toMatchObject({ used: 1, reserved: 0 });
  });
});

describe("refusals", () => {
  test("a tampered URL, an unknown key and an expired URL are refused before anything is counted", async () => {
    const { fetchImage, urlFor, usage, storeCalls, clock, key } = await setup();
    const url = urlFor({ title: "Signed" });
    storeCalls();
    expect(await refusal(fetchImage(url.replace("Signed", "Tampered")))).toBe("INVALID_SIGNATURE");
    expect(await refusal(fetchImage(url.replace(key.id, `sk_${"0".repeat(20)}`)))).toBe("INVALID_SIGNATURE");
    const nowSeconds = Math.floor(clock.now() / 1000);
    expect(await refusal(fetchImage(urlFor({ title: "Old", exp: String(nowSeconds - 1) })))).toBe("URL_EXPIRED");
    expect(countingCallsIn(storeCalls())).toEqual([]);

    // A URL verified (and counted) while valid is refused once `exp` passes, from the cache of verified URLs too.
    const expiring = urlFor({ title: "Expiring", exp: String(nowSeconds + 60) });
    await fetchImage(expiring);
    await clock.advance(61);
    storeCalls();
    expect(await refusal(fetchImage(expiring))).toBe("URL_EXPIRED");
    expect(countingCallsIn(storeCalls())).toEqual([]);
    expect(await usage()).toMatchObject({ used: 1, reserved: 0 });
  });

  test("the rate limit comes before the quota; a refused image is not counted and is asked about again", async () => {
    const { fetchImage, urlFor, addressOf, usage, storeCalls, clock, store, account, metering } = await setup({ quota: 1, requestsPerSecond: 1 });
    await fetchImage(urlFor({ title: "First" }));
    expect(await usage()).toMatchObject({ used: 1, reserved: 0 });

    // Quota and rate both spent: the rate limit answers, and no unit is asked for.
    const second = urlFor({ title: "Second" });
    storeCalls();
    expect(await refusal(fetchImage(second))).toBe("RATE_LIMIT_EXCEEDED");
    expect(storeCalls().reserveUnit).toBeUndefined();

    await clock.advance(1);
    expect(await refusal(fetchImage(second))).toBe("QUOTA_EXCEEDED");
    expect(await usage()).toMatchObject({ used: 1, reserved: 0 });
    const period = metering.currentPeriod();
    expect(await store.isImageCounted({ accountId: account.id, period, contentAddress: await addressOf(second) })).toBe(false);

    // The refusal was not remembered as counted: the next fetch asks the store again, and is refused again.
    await clock.advance(1);
    storeCalls();
    expect(await refusal(fetchImage(second))).toBe("QUOTA_EXCEEDED");
    expect(storeCalls().isImageCounted).toBe(1);
    expect(await usage()).toMatchObject({ used: 1, reserved: 0 });
  });
});

describe("the gates still run before a counted image's repeat", () => {
  test("a canceled account, a plan change and a deleted key apply on the very next request", async () => {
    const { fetchImage, urlFor, usage, accounts, account, signingKeys, key, clock } = await setup({ quota: 1, requestsPerSecond: 100 });
    const counted = urlFor({ title: "Counted" });
    await fetchImage(counted);

    await accounts.update(account.id, { status: "canceled" });
    expect(await refusal(fetchImage(counted))).toBe("SUBSCRIPTION_CANCELED");
    await accounts.update(account.id, { status: "past_due" });
    expect(await refusal(fetchImage(counted))).toBe("PAYMENT_PAST_DUE");
    await accounts.update(account.id, { status: "active" });
    await fetchImage(counted);

    // The quota is spent; raising it lets the very next new image count.
    const fresh = urlFor({ title: "Fresh" });
    expect(await refusal(fetchImage(fresh))).toBe("QUOTA_EXCEEDED");
    await accounts.update(account.id, { plan: "custom", quota: 2 });
    await clock.advance(1);
    await fetchImage(fresh);
    expect(await usage()).toMatchObject({ used: 2, reserved: 0 });

    await signingKeys.delete(account.id, key.id);
    expect(await refusal(fetchImage(counted))).toBe("INVALID_SIGNATURE");
  });
});
