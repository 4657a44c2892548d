/**
 * A store that is there but cannot take the work in time answers 503 SERVER_BUSY; one that is
 * out of reach answers 503 SERVICE_UNAVAILABLE; both with Retry-After. The PostgreSQL faults are
 * real: a server that accepts TCP but never answers (a CPU-starved PostgreSQL's connect timeout),
 * one that stopped accepting, a closed port, and a role past its connection limit (53300) on the
 * throwaway PostgreSQL server.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import postgres from "postgres";

import { jsonError, unavailableError } from "../../../src/http/error-mapper.ts";
import { silentLogger } from "../../../src/logger.ts";
import { StoreUnavailableError } from "../../../src/store/errors.ts";
import { connect, PostgresConnection } from "../../../src/store/postgres/connection.ts";
import { execSql, postgresAvailable, testDatabaseUrl } from "../../support/postgres.ts";

/** The reason a store call failed with, or a failure if it did not throw a StoreUnavailableError. */
async function faultOf(url: string): Promise<string> {
  const c = new PostgresConnection(connect(url, { max: 1 }), connect(url, { max: 1 }));
  try {
    await c.run((sql) => sql`select 1`);
    throw new Error("the call succeeded");
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    return error.reason;
  } finally {
    await c.close();
  }
}

/** A TCP server that accepts connections and never says a word; `stopAfterFirst` stops listening once one is open. */
function silentServer(stopAfterFirst = false): { port: number; stop(): void } {
  const held: Socket<unknown>[] = [];
  let listener: TCPSocketListener | undefined;
  listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        held.push(socket);
        if (stopAfterFirst) listener?.stop(false);
      },
      data() {},
    },
  });
  return {
    port: listener.port,
    stop() {
      listener?.stop(true);
      for (const socket of held) socket.end();
    },
  };
}

describe("the HTTP answer to a store fault", () => {
  const logger = silentLogger;
  test("busy: 503 SERVER_BUSY with Retry-After; unreachable, disk full: 503 SERVICE_UNAVAILABLE with Retry-After", async () => {
    const cases = [
      ["busy", "SERVER_BUSY"],
      ["unreachable", "SERVICE_UNAVAILABLE"],
      ["disk_full", "SERVICE_UNAVAILABLE"],
    ] as const;
    for (const [reason, code] of cases) {
      const res = jsonError(unavailableError(new StoreUnavailableError("injected", reason, 2), logger, "req"));
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(await res.json()).toMatchObject({ error: true, code });
    }
  });
});

describe("PostgreSQL faults: overloaded or out of reach", () => {
  const servers: { stop(): void }[] = [];
  afterAll(() => {
    for (const server of servers) server.stop();
  });

  test("a connect timeout against a server that still accepts connections is busy", async () => {
    const server = silentServer();
    servers.push(server);
    expect(await faultOf(`postgres://nobody@127.0.0.1:${server.port}/db`)).toBe("busy");
  }, 20_000);

  test("a connect timeout against a server that no longer accepts connections is unreachable", async () => {
    const server = silentServer(true);
    servers.push(server);
    expect(await faultOf(`postgres://nobody@127.0.0.1:${server.port}/db`)).toBe("unreachable");
  }, 20_000);

  test("a refused connection is unreachable", async () => {
    const server = silentServer();
    const port = server.port;
    server.stop();
    expect(await faultOf(`postgres://nobody@127.0.0.1:${port}/db`)).toBe("unreachable");
  }, 20_000);

  const maybe = postgresAvailable() || process.env.CI === "true" ? test : test.skip;
  maybe(
    "too many connections (53300, a role at its connection limit while another holds it) is busy",
    async () => {
      const url = await testDatabaseUrl();
      const role = `limited_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      await execSql(url, `create role ${role} login connection limit 1`, []);
      const limitedUrl = url.replace(/\/\/[^@]+@/, `//${role}@`);
      const holder = postgres(limitedUrl, { max: 1, onnotice: () => {} });
      try {
        await holder`select 1`;
        expect(await faultOf(limitedUrl)).toBe("busy");
      } finally {
        await holder.end({ timeout: 1 });
      }
    },
    30_000,
  );

  maybe(
    "a statement the server cancelled (57014, a statement_timeout set on the role) is busy",
    async () => {
      const url = await testDatabaseUrl();
      const role = `impatient_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      await execSql(url, `create role ${role} login`, []);
      await execSql(url, `alter role ${role} set statement_timeout = 50`, []);
      const impatientUrl = url.replace(/\/\/[^@]+@/, `//${role}@`);
      const c = new PostgresConnection(connect(impatientUrl, { max: 1 }), connect(impatientUrl, { max: 1 }));
      try {
        const fault = await c
          .run((sql) => sql`select pg_sleep(2)`)
          .then(
            () => "the call succeeded",
            (error: unknown) => (error instanceof StoreUnavailableError ? error.reason : `not a store fault: ${error}`),
          );
        expect(fault).toBe("busy");
      } finally {
        await c.close();
      }
    },
    30_000,
  );
});
