/**
 * The service with OG_REDIS_URL: the per-second limit lives in a real redis-server on loopback.
 * Two services on one Redis share one window for a key; Redis down answers 503
 * SERVICE_UNAVAILABLE in the envelope and counts nothing; Redis back, the same process recovers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";

import { startTestService, type TestService } from "../support/harness.ts";
import { redisAvailable, startRedis, type RedisServer } from "../support/redis.ts";
import { waitFor } from "../support/wait.ts";

const maybe = redisAvailable() || process.env.CI === "true" ? describe : describe.skip;

maybe("rate limit in Redis", () => {
  let redis: RedisServer;
  let service: TestService;

  beforeAll(async () => {
    redis = await startRedis();
    service = await startTestService({ OG_REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await service?.stop();
    await redis?.stop();
  });

  test("the key's window is kept in Redis: the rate holds and the headers are the in-memory ones", async () => {
    const { apiKey } = await service.createAccount({ plan: "free" }); // 1 request per second
    const first = await service.api("/api/user/usage", { key: apiKey });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-limit")).toBe("1");
    expect(first.headers.get("ratelimit-remaining")).toBe("0");
    const second = await service.api("/api/user/usage", { key: apiKey });
    expect(second.status).toBe(429);
    expect((await second.json()).code).toBe("RATE_LIMIT_EXCEEDED");
    expect(second.headers.get("retry-after")).toBe("1");
    await service.advance(1); // the test clock decides the window in Redis too
    expect((await service.api("/api/user/usage", { key: apiKey })).status).toBe(200);
  });

  test("Redis down: 503 SERVICE_UNAVAILABLE envelope and nothing counted; Redis back: recovery without restart", async () => {
    const { apiKey } = await service.createAccount({ plan: "starter" });
    await redis.stop();
    const down = await service.api("/api/generate", { key: apiKey, method: "POST", json: { title: "while Redis is down" } });
    expect(down.status).toBe(503);
    const body = await down.json();
    expect(body).toMatchObject({ error: true, code: "SERVICE_UNAVAILABLE" });
    expect(body.message).not.toContain(redis.url);
    await redis.start();
    let usage: Response | undefined;
    await waitFor(async () => (usage = await service.api("/api/user/usage", { key: apiKey })).status === 200, "usage to answer again once Redis is back", {
      intervalMs: 50,
    });
    expect(usage!.status).toBe(200);
    expect((await usage!.json()).used).toBe(0);
  });
});
