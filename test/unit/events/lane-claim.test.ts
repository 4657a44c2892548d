/** Which due jobs a claim takes, decided without a store. */
import { describe, expect, test } from "bun:test";
import { LaneClaim } from "../../../src/events/lane-claim.ts";
import type { ClaimCandidate } from "../../../src/store/types.ts";

const jobs = (lane: string, n: number, from = 0): ClaimCandidate[] => Array.from({ length: n }, (_, i) => ({ id: `${lane}_${from + i}`, lane }));
const room = (cap: number) => () => cap;

describe("LaneClaim", () => {
  test("takes oldest first, at most the lane's room per lane, up to the limit", () => {
    const claim = new LaneClaim(5, room(2));
    const taken = claim.offer([...jobs("a", 3), ...jobs("b", 1), ...jobs("c", 3)]);
    expect(taken).toBe(5);
    expect(claim.chosen).toEqual(["a_0", "a_1", "b_0", "c_0", "c_1"]);
  });

  test("the room is asked per lane", () => {
    const claim = new LaneClaim(64, (lane) => (lane === "email" ? 1 : 8));
    claim.offer([...jobs("email", 3), ...jobs("wh_1", 10)]);
    expect(claim.chosen).toEqual(["email_0", ...jobs("wh_1", 8).map((j) => j.id)]);
  });

  test("the window is twice the limit and sixteen more", () => {
    expect(new LaneClaim(64, room(8)).window).toBe(144);
  });

  test("a full window of full lanes searches past them (when asked); what the second read adds counts against the same lanes", () => {
    const claim = new LaneClaim(4, room(2));
    const first = jobs("busy", claim.window);
    claim.offer(first);
    expect(claim.searchPast(first, false)).toBeUndefined();
    expect(claim.searchPast(first, true)).toEqual(["busy"]);
    expect(claim.offer([...jobs("busy", 2, 100), ...jobs("quiet", 3)])).toBe(2);
    expect(claim.chosen).toEqual(["busy_0", "busy_1", "quiet_0", "quiet_1"]);
  });

  test("no search when the window held every due job or the claim is full", () => {
    const short = new LaneClaim(4, room(2));
    const few = jobs("busy", 5);
    short.offer(few);
    expect(short.searchPast(few, true)).toBeUndefined();
    const full = new LaneClaim(2, room(8));
    const window = jobs("a", full.window);
    full.offer(window);
    expect(full.searchPast(window, true)).toBeUndefined();
  });

  test("a second read that adds nothing reports zero (the caller then skips the search until something new is due)", () => {
    const claim = new LaneClaim(4, room(1));
    const first = jobs("busy", claim.window);
    claim.offer(first);
    expect(claim.offer(jobs("busy", 3, 200))).toBe(0);
  });
});
