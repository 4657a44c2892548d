/**
 * Domain logic that runs inside a store's transaction, written once for both stores.
 *
 * A store hands such logic a transaction handle: an object of small reads and writes (SQL and
 * row mapping only). SQLite's handle answers at once — its transactions must stay synchronous,
 * since bun:sqlite commits when the body returns — and PostgreSQL's answers with promises. So
 * the logic is a generator that yields each handle call's answer (`yield* step(tx.read(…))`) and
 * the store drives it: `runNow` inside a synchronous SQLite body, `runAwaiting` inside a
 * PostgreSQL transaction. The logic itself never knows which one runs it.
 */

/** A transaction handle's answer: the value itself (SQLite) or a promise of it (PostgreSQL). */
export type Step<T> = T | PromiseLike<T>;

/** Logic run inside a transaction; its result is `T`. */
export type TxRoutine<T> = Generator<Step<unknown>, T, unknown>;

/** Inside a routine: `const rows = yield* step(tx.rows())` waits for the answer, whichever store gives it. */
export function* step<T>(answer: Step<T>): Generator<Step<T>, T, unknown> {
  return (yield answer) as T;
}

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";

/** Drives a routine whose handle answers at once (a synchronous SQLite transaction body). */
export function runNow<T>(routine: TxRoutine<T>): T {
  let next = routine.next();
  while (!next.done) {
    if (isPromiseLike(next.value)) throw new Error("a synchronous transaction handle answered with a promise");
    next = routine.next(next.value);
  }
  return next.value;
}

/** Drives a routine whose handle answers with promises (a PostgreSQL transaction). */
export async function runAwaiting<T>(routine: TxRoutine<T>): Promise<T> {
  let next = routine.next();
  while (!next.done) next = routine.next(await next.value);
  return next.value;
}
