/** Prefixed random ids (`acc_`, `key_`, `wh_`, `evt_`, `dlv_`, `req_`): the type is readable in any log line. */

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * CSPRNG bytes drawn from a buffer refilled 4 KiB at a time: every request takes an id, and one
 * `randomBytes` call (and buffer) per id was a measurable share of a cheap request. No byte is
 * handed out twice.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** Uniform random alphanumerics from the CSPRNG (rejection sampling: no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHANUMERIC[byte % 62];
  }
  return out;
}

export type IdPrefix = "acc" | "key" | "wh" | "evt" | "dlv" | "req" | "job" | "ses" | "eml" | "font" | "bat";

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomAlphanumeric(20)}`;
