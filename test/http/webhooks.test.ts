/**
 * /api/webhooks in process.
 */
import { describe, test } from "bun:test";
import { envelope } from "../support/envelope.ts";
import { customAccount, useInProcessApp } from "../support/in-process.ts";

const s = useInProcessApp();

describe("routes that do not exist", () => {
  test("another account's webhook is 404 WEBHOOK_NOT_FOUND, like one that never existed", async () => {
    const { key } = await customAccount(s);
    await envelope(await s.api("/api/webhooks/wh_doesnotexist/deliveries", { key }), 404, "WEBHOOK_NOT_FOUND");
  });
});
