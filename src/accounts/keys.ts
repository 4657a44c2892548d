/** API keys: `og_` + 32 alphanumerics from the CSPRNG. Only a SHA-256 hash is stored. */
import { createHash } from "node:crypto";
import { randomAlphanumeric } from "../ids.ts";

export const API_KEY_PATTERN = /^og_[A-Za-z0-9]{32}$/;

export const generateApiKey = (): string => `og_${randomAlphanumeric(32)}`;

/**
 * A plain SHA-256 is enough here (unlike passwords): the key has ~190 bits of entropy, so there
 * is nothing to brute-force, and a fast hash keeps the lookup on the hot path cheap.
 */
export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");

/** What may appear in logs and listings: enough to tell keys apart. */
export const keyPrefix = (key: string): string => key.slice(0, 7);
