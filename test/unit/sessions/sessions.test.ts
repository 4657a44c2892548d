/** Dashboard sessions against the Store interface: sign-in, lookup, expiry, key replacement, sign-out. */
import { expect, test } from "bun:test";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { TestClock } from "../../../src/clock.ts";
import { SESSION_TTL_MS, SessionService } from "../../../src/sessions/sessions.ts";
import { openTestStore } from "../../support/stores.ts";

async function setup() {
  const store = await openTestStore();
  const clock = new TestClock(Date.UTC(2031, 0, 1));
  const accounts = new AccountService(store, clock);
  const sessions = new SessionService(store, clock, accounts);
  const { account, apiKey } = await accounts.create({ email: "s@example.com", plan: "pro" });
  return { store, clock, accounts, sessions, account, apiKey };
}

test("signing in stores only the token's hash; the token resolves to the account", async () => {
  const { store, sessions, account, apiKey } = await setup();
  const { token, session } = await sessions.signIn(` ${apiKey} `);
  expect(token).toMatch(/^ogs_[A-Za-z0-9]{43}$/);
  expect((await sessions.resolve(token))?.account.id).toBe(account.id);
  expect((await sessions.resolve(token))?.id).toBe(session.id);
  const rows = await store.listSessions(account.id);
  expect(rows).toHaveLength(1);
  expect(JSON.stringify(rows)).not.toContain(token);
  expect(JSON.stringify(rows)).not.toContain(apiKey);
});

test("bad keys are refused with the field named", async () => {
  const { sessions } = await setup();
  expect(await sessions.signIn("").catch((e) => [e.code, e.details[0].field])).toEqual(["VALIDATION_ERROR", "api_key"]);
  expect(await sessions.signIn("og_" + "y".repeat(32)).catch((e) => [e.code, e.details[0].field])).toEqual(["INVALID_API_KEY", "api_key"]);
  expect(await sessions.signIn(42).catch((e) => e.code)).toBe("VALIDATION_ERROR");
  expect(await sessions.resolve("ogs_short")).toBeUndefined();
  expect(await sessions.resolve(undefined)).toBeUndefined();
});

test("a session ends at its expiry on the service clock, and expired rows are swept at the next sign-in", async () => {
  const { store, clock, sessions, account, apiKey } = await setup();
  const { token } = await sessions.signIn(apiKey);
  await clock.advance(SESSION_TTL_MS / 1000 - 1);
  expect(await sessions.resolve(token)).toBeDefined();
  await clock.advance(1);
  expect(await sessions.resolve(token)).toBeUndefined();
  await sessions.signIn(apiKey);
  expect(await store.listSessions(account.id)).toHaveLength(1);
});

test("replacing the key ends its sessions; signing out ends one for good", async () => {
  const { accounts, sessions, account, apiKey } = await setup();
  const { token } = await sessions.signIn(apiKey);
  const newKey = await accounts.replaceKey(account.id);
  expect(await sessions.resolve(token)).toBeUndefined();
  const { token: second } = await sessions.signIn(newKey);
  expect(await sessions.resolve(second)).toBeDefined();
  await sessions.signOut(second);
  expect(await sessions.resolve(second)).toBeUndefined();
  await sessions.signOut(undefined);
});
