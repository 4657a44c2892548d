/** Dashboard sessions against the Store interface: sign-in, lookup, expiry (idle and absolute), the per-account cap, attempt limits, key replacement, sign-out. */
import { expect, test } from "bun:test";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { TestClock } from "../../../src/clock.ts";
import { MAX_SESSIONS_PER_ACCOUNT, SESSION_IDLE_MS, SESSION_TTL_MS, SessionService } from "../../../src/sessions/sessions.ts";
import { SIGN_IN_LIMITS } from "../../../src/sessions/sign-in-limit.ts";
import { describeEachStore, openTestStore } from "../../support/stores.ts";

async function setup() {
  const store = await openTestStore();
  const clock = new TestClock(Date.UTC(2031, 0, 1));
  const accounts = new AccountService(store, clock);
  const sessions = new SessionService(store, clock, accounts);
  const { account, apiKey } = await accounts.create({ email: "s@example.com", plan: "pro" });
  return { store, clock, accounts, sessions, account, apiKey };
}

describeEachStore(() => {
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

  test("a session used within the idle timeout lasts until its absolute lifetime, then ends; expired rows are swept at the next sign-in", async () => {
    const { store, clock, sessions, account, apiKey } = await setup();
    const { token } = await sessions.signIn(apiKey);
    const step = SESSION_IDLE_MS / 1000 - 60;
    let lived = 0;
    while (lived + step < SESSION_TTL_MS / 1000) {
      await clock.advance(step);
      lived += step;
      expect(await sessions.resolve(token)).toBeDefined();
    }
    await clock.advance(SESSION_TTL_MS / 1000 - lived - 1);
    expect(await sessions.resolve(token)).toBeDefined();
    await clock.advance(1);
    expect(await sessions.resolve(token)).toBeUndefined();
    await sessions.signIn(apiKey);
    expect(await store.listSessions(account.id)).toHaveLength(1);
  });

  test("a session left unused for the idle timeout ends", async () => {
    const { clock, sessions, apiKey } = await setup();
    const { token } = await sessions.signIn(apiKey);
    await clock.advance(SESSION_IDLE_MS / 1000 - 1);
    expect(await sessions.resolve(token)).toBeDefined(); // this use moves the end
    await clock.advance(SESSION_IDLE_MS / 1000 - 1);
    expect(await sessions.resolve(token)).toBeDefined();
    await clock.advance(SESSION_IDLE_MS / 1000);
    expect(await sessions.resolve(token)).toBeUndefined();
  });

  test("an account keeps at most MAX_SESSIONS_PER_ACCOUNT sessions: one more sign-in ends the oldest", async () => {
    const { store, clock, sessions, account, apiKey } = await setup();
    const tokens: string[] = [];
    for (let i = 0; i <= MAX_SESSIONS_PER_ACCOUNT; i++) {
      // Each from a new minute, so the attempt limit per key is not what is tested here.
      await clock.advance(SIGN_IN_LIMITS.windowMs / 1000);
      tokens.push((await sessions.signIn(apiKey, `client-${i}`)).token);
      await sessions.resolve(tokens[0]); // the oldest stays in use: the cap, not the idle timeout, ends it
    }
    expect(await store.listSessions(account.id)).toHaveLength(MAX_SESSIONS_PER_ACCOUNT);
    expect(await sessions.resolve(tokens[0])).toBeUndefined();
    for (const token of tokens.slice(1)) expect(await sessions.resolve(token)).toBeDefined();
  });

  test("sign-in attempts are limited per client (failures) and per key (every attempt), until the window passes", async () => {
    const { clock, sessions, apiKey } = await setup();
    const wrong = "og_" + "y".repeat(32);
    for (let i = 0; i < SIGN_IN_LIMITS.failuresPerClient; i++) {
      expect(await sessions.signIn(`${wrong.slice(0, -2)}${String(i).padStart(2, "0")}`, "attacker").catch((e) => e.code)).toBe("INVALID_API_KEY");
    }
    // The right key from that client is refused too, with how long to wait; another client is not.
    const refused = await sessions.signIn(apiKey, "attacker").catch((e) => e);
    expect(refused.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(refused.retryAfterSeconds).toBe(SIGN_IN_LIMITS.windowMs / 1000);
    expect((await sessions.signIn(apiKey, "someone else")).token).toBeDefined();

    // One key tried from many clients.
    for (let i = 1; i < SIGN_IN_LIMITS.attemptsPerKey; i++) await sessions.signIn(apiKey, `client-${i}`);
    expect(await sessions.signIn(apiKey, "yet another").catch((e) => e.code)).toBe("RATE_LIMIT_EXCEEDED");

    await clock.advance(SIGN_IN_LIMITS.windowMs / 1000);
    expect((await sessions.signIn(apiKey, "attacker")).token).toBeDefined();
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
});
