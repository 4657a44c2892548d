import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

describe("config", () => {
  test("defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      dbPath: "./data/ogsmith.db",
      adminToken: undefined,
      allowPrivateNetworks: false,
      testClock: false,
      bootstrap: true,
      baseUrl: "http://localhost:3000",
    });
    expect(c.renderWorkers).toBeGreaterThanOrEqual(1);
  });

  test("flags override the environment", () => {
    expect(loadConfig({ PORT: "4000" }, { port: 5000, dbPath: ":memory:" })).toMatchObject({
      port: 5000,
      dbPath: ":memory:",
      baseUrl: "http://localhost:5000",
    });
  });

  test.each([
    [{ PORT: "70000" }, "PORT must be between 0 and 65535"],
    [{ PORT: "3e3" }, "PORT must be a whole number"],
    [{ OG_RENDER_WORKERS: "0" }, "OG_RENDER_WORKERS must be between 1 and 256"],
    [{ OG_ALLOW_PRIVATE_NETWORKS: "sometimes" }, "OG_ALLOW_PRIVATE_NETWORKS must be a boolean"],
    [{ OG_ADMIN_TOKEN: "short" }, "OG_ADMIN_TOKEN must be at least 16 characters"],
    [{ OG_BASE_URL: "not a url" }, "OG_BASE_URL is not a valid URL"],
    [{ OG_LOG_LEVEL: "loud" }, "OG_LOG_LEVEL must be one of"],
    [{ OG_DATABASE_URL: "mysql://db/og" }, "OG_DATABASE_URL must use postgres: or postgresql:"],
    [{ OG_DATABASE_URL: "postgres://user:secret@[bad" }, "OG_DATABASE_URL is not a valid URL"],
  ])("%p is refused with one clear line", (env, message) => {
    expect(() => loadConfig(env as Record<string, string>)).toThrow(ConfigError);
    expect(() => loadConfig(env as Record<string, string>)).toThrow(message);
  });

  test("OG_DATABASE_URL selects PostgreSQL; unset, the SQLite file stays the store", () => {
    expect(loadConfig({}).databaseUrl).toBeUndefined();
    expect(loadConfig({ OG_DATABASE_URL: " postgres://og:pw@db:5432/og " }).databaseUrl).toBe("postgres://og:pw@db:5432/og");
    expect(loadConfig({ OG_DATABASE_URL: "postgresql://db/og" }).databaseUrl).toBe("postgresql://db/og");
    // The error names the variable, never the value (it may carry a password).
    expect(() => loadConfig({ OG_DATABASE_URL: "postgres://user:secret@[bad" })).not.toThrow(/secret/);
  });

  test("OG_RENDER_ENGINE: satori by default, takumi when named, anything else a one-line error", () => {
    expect(loadConfig({}).renderEngine).toBe("satori");
    expect(loadConfig({ OG_RENDER_ENGINE: "takumi" }).renderEngine).toBe("takumi");
    expect(loadConfig({ OG_RENDER_ENGINE: " Takumi " }).renderEngine).toBe("takumi");
    expect(() => loadConfig({ OG_RENDER_ENGINE: "resvg" })).toThrow(/^OG_RENDER_ENGINE must be one of satori, takumi, got "resvg"$/);
  });

  test("OG_HTTP_THREADS is gone: any value is accepted and named once for the start-up log, with what to do instead", () => {
    expect(loadConfig({}).retired).toEqual([]);
    for (const value of ["4", "0", "many"]) {
      const { retired } = loadConfig({ OG_HTTP_THREADS: value });
      expect(retired).toHaveLength(1);
      expect(retired[0]).toContain("OG_HTTP_THREADS is gone");
      expect(retired[0]).toContain("several instances");
    }
  });

  test("booleans accept true/false/1/0/yes/no", () => {
    expect(loadConfig({ OG_TEST_CLOCK: "1" }).testClock).toBe(true);
    expect(loadConfig({ OG_TEST_CLOCK: "yes" }).testClock).toBe(true);
    expect(loadConfig({ OG_BOOTSTRAP: "false" }).bootstrap).toBe(false);
    expect(loadConfig({ OG_BOOTSTRAP: "0" }).bootstrap).toBe(false);
  });
});
