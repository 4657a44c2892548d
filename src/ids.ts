/** Prefixed random ids (`acc_`, `key_`, `wh_`, `evt_`, `dlv_`, `req_`): the type is readable in any log line. */
import { randomBytes } from "node:crypto";

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Uniform random alphanumerics from the CSPRNG (rejection sampling: no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

export type IdPrefix = "acc" | "key" | "wh" | "evt" | "dlv" | "req" | "job" | "ses" | "eml";

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomAlphanumeric(20)}`;
