/** API keys: `og_` + 32 alphanumerics from the CSPRNG. Only a SHA-256 hash is stored. */
import { randomAlphanumeric } from "../ids.ts";

export const API_KEY_PATTERN = /^og_[A-Za-z0-9]{32}$/;

export const generateApiKey = (): string => `og_${randomAlphanumeric(32)}`;

/**
 * A plain SHA-256 is enough here (unlike passwords): the key has ~190 bits of entropy, so there
 * is nothing to brute-force, and a fast hash keeps the lookup on the hot path cheap. Bun's
 * one-shot SHA-256 gives the same hex as node:crypto's createHash in a third of the time.
 */
export const hashApiKey = (key: string): string => Bun.SHA256.hash(key, "hex") as string;

/** What may appear in logs and listings: enough to tell keys apart. */
export const keyPrefix = (key: string): string => key.slice(0, 7);
