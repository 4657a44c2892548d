/**
 * Signing keys for public image URLs: the store port of src/signing.
 * The rules of the Store (../types.ts) hold for every method: each is atomic, operational faults
 * are thrown as StoreUnavailableError, times are epoch ms, records are plain objects.
 */
import type { AccountRecord } from "./accounts.ts";

/** A signing key for public image URLs. */
export interface SigningKeyRecord {
  /** `sk_` + 20 alphanumerics; public (it is part of every URL it signs). */
  id: string;
  accountId: string;
  /** `ogsk_…` as issued: HMAC verification needs it. Never returned after creation, never logged. */
  secret: string;
  createdAt: number;
  /** Clock time of the last accepted URL, kept coarsely (at most about once a minute). */
  lastUsedAt: number | null;
}

/** What a signed URL's key id resolves to. */
export interface SigningKeyOwner {
  key: SigningKeyRecord;
  account: AccountRecord;
}

/** Signing keys (public image URLs). */
export interface SigningKeysPort {
  /** Inserts the key unless the account already has `maxPerAccount` (checked in the same transaction). */
  createSigningKey(key: SigningKeyRecord, maxPerAccount: number): Promise<SigningKeyRecord | "limit_reached">;
  /** The account's keys, oldest first. */
  listSigningKeys(accountId: string): Promise<SigningKeyRecord[]>;
  /** False when the account has no such key (another account's included). Its URLs stop at once. */
  deleteSigningKey(accountId: string, id: string): Promise<boolean>;
  /** The key with its account, by id alone (the public URL). Must see a deletion at once (no cache). */
  findSigningKey(id: string): Promise<SigningKeyOwner | undefined>;
  /** Sets `lastUsedAt` (no-op when the key is gone). */
  touchSigningKey(id: string, now: number): Promise<void>;
}
