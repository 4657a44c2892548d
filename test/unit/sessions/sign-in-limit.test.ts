/** The sign-in limiter's memory is bounded: past MAX_TRACKED windows of a kind, those that started first are let go. */
import { expect, test } from "bun:test";
import { TestClock } from "../../../src/clock.ts";
import { MAX_TRACKED, SIGN_IN_LIMITS, SignInLimiter } from "../../../src/sessions/sign-in-limit.ts";

const refused = (limiter: SignInLimiter, client: string, key: string) => {
  try {
    limiter.admit(client, key);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === "RATE_LIMIT_EXCEEDED";
  }
};

test("a client's window is let go once MAX_TRACKED newer windows started, and not before", () => {
  const limiter = new SignInLimiter(new TestClock(0));
  for (let i = 0; i < SIGN_IN_LIMITS.failuresPerClient; i++) limiter.failed("attacker");
  expect(refused(limiter, "attacker", "key-1")).toBe(true);
  // Checking the window does not keep it: only a new window counts as newer.
  for (let i = 1; i < MAX_TRACKED; i++) limiter.failed(`client-${i}`);
  expect(refused(limiter, "attacker", "key-2")).toBe(true);
  limiter.failed(`client-${MAX_TRACKED}`);
  expect(refused(limiter, "attacker", "key-3")).toBe(false);
});
