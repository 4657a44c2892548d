/**
 * The admin API (/admin/…) in process (test/support/in-process.ts). Its validation and the
 * admin token's checks are with the routes they guard (generate.test.ts: authentication, validation).
 */
import { describe, test } from "bun:test";
import { envelope } from "../support/envelope.ts";
import { useInProcessApp } from "../support/in-process.ts";

const s = useInProcessApp();

describe("routes that do not exist", () => {
  test("the admin API without the right token is 401 UNAUTHORIZED", async () => {
    await envelope(await s.api("/admin/accounts/acc_x"), 401, "UNAUTHORIZED");
    await envelope(await s.api("/admin/accounts/acc_x", { headers: { authorization: "Bearer wrong-token-0123456789" } }), 401, "UNAUTHORIZED");
  });
});
