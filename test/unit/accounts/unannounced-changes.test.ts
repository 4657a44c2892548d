/**
 * A process on a PostgreSQL database whose instances keep keys in memory (they run with Redis)
 * must not change keys, limits or signing keys without announcing it in Redis: the CLI run from a
 * shell without OG_REDIS_URL, say. Real PostgreSQL and Redis; the services as every face builds them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config.ts";
import { ApiError } from "../../../src/errors.ts";
import { silentLogger } from "../../../src/logger.ts";
import { createServices, type Services } from "../../../src/services.ts";
import { postgresAvailable, testDatabaseUrl } from "../../support/postgres.ts";
import { redisAvailable, startRedis, type RedisServer } from "../../support/redis.ts";

const maybe = (postgresAvailable() && redisAvailable()) || process.env.CI === "true" ? describe : describe.skip;

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return "done";
  } catch (error) {
    if (error instanceof ApiError) return `${error.code}: ${error.message}`;
    throw error;
  }
}

maybe("changes behind the caches' back", () => {
  let redis: RedisServer;
  let url: string;
  const opened: Services[] = [];
  const open = async (withRedis: boolean) => {
    const env: Record<string, string> = { OG_DATABASE_URL: url, OG_BOOTSTRAP: "false" };
    if (withRedis) env.OG_REDIS_URL = redis.url;
    const services = await createServices(loadConfig(env), { logger: silentLogger });
    opened.push(services);
    return services;
  };
  beforeAll(async () => {
    redis = await startRedis();
    url = await testDatabaseUrl();
  });
  afterAll(async () => {
    for (const services of opened) await services.close();
    await redis.stop();
  });

  test("are made while no instance with caches has run on the database, and refused once one has, until Redis is named", async () => {
    const shell = await open(false);
    const { account } = await shell.accounts.create({ email: "ops@example.com", plan: "starter" });
    const signing = await shell.signingKeys.create(account.id);
    expect(await refusal(shell.accounts.replaceKey(account.id))).toBe("done");

    const instance = await open(true);
    const refused = await refusal(shell.accounts.replaceKey(account.id));
    expect(refused).toStartWith("SERVICE_UNAVAILABLE: ");
    expect(refused).toContain("OG_REDIS_URL");
    expect(await refusal(shell.accounts.update(account.id, { plan: "pro" }))).toStartWith("SERVICE_UNAVAILABLE: ");
    expect(await refusal(shell.signingKeys.delete(account.id, signing.id))).toStartWith("SERVICE_UNAVAILABLE: ");
    expect((await shell.accounts.show(account.id)).plan).toBe("starter");
    expect(await shell.signingKeys.list(account.id)).toHaveLength(1);

    // Through Redis, the same changes are made (and announced).
    const withRedis = await open(true);
    expect(await refusal(withRedis.accounts.update(account.id, { plan: "pro" }))).toBe("done");
    expect(await refusal(instance.signingKeys.delete(account.id, signing.id))).toBe("done");
    expect((await shell.accounts.show(account.id)).plan).toBe("pro");
  }, 60_000);
});
