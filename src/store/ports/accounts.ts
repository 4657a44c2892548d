/**
 * Accounts and their API keys: the store port the accounts core and key resolution use.
 * The rules of the Store (../types.ts) hold for every method: each is atomic, operational faults
 * are thrown as StoreUnavailableError, times are epoch ms, records are plain objects.
 */

export interface AccountRecord {
  /** `acc_` + random id. */
  id: string;
  email: string;
  /** One of the plan ids in src/accounts/plans.ts. */
  plan: string;
  /** Subscription state: active | canceled | past_due. */
  status: string;
  /** Monthly quota for the `custom` plan; null means "the plan's quota". */
  customQuota: number | null;
  /** Requests per second for the `custom` plan; null means "the plan's rate". */
  customRequestsPerSecond: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface ApiKeyRecord {
  /** `key_` + random id; safe to log. */
  id: string;
  accountId: string;
  /** Lowercase hex SHA-256 of the full key. The key itself is never stored. */
  keyHash: string;
  /** `og_` plus the first 4 characters. */
  keyPrefix: string;
  createdAt: number;
  /** Set when the key was replaced; a revoked key is refused at once. */
  revokedAt: number | null;
}

/** What an accepted key resolves to. */
export interface KeyOwner {
  account: AccountRecord;
  keyId: string;
  keyPrefix: string;
}

export interface AccountChanges {
  email: string;
  plan: string;
  status: string;
  customQuota: number | null;
  customRequestsPerSecond: number | null;
  updatedAt: number;
}

/** Accounts and keys. */
export interface AccountsPort {
  countAccounts(): Promise<number>;
  /** Inserts the account and its first key together. */
  createAccount(account: AccountRecord, key: ApiKeyRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  /** Every account, oldest first, with the prefix of its active key. */
  listAccounts(): Promise<{ account: AccountRecord; keyPrefix: string | null }[]>;
  /** Returns the updated account, or undefined when there is none with this id. */
  updateAccount(id: string, changes: AccountChanges): Promise<AccountRecord | undefined>;
  /** The newest unrevoked key's prefix. */
  activeKeyPrefix(accountId: string): Promise<string | null>;
  /** Revokes every active key of the account (revokedAt = key.createdAt) and inserts `key`, atomically; false when the account does not exist. */
  replaceKey(accountId: string, key: ApiKeyRecord): Promise<boolean>;
  /** The account behind an unrevoked key with this hash. Must see a replacement at once (no cache). */
  findAccountByKeyHash(keyHash: string): Promise<KeyOwner | undefined>;
  /** Every key of the account (revoked ones included); for operators and tests. */
  listApiKeys(accountId: string): Promise<ApiKeyRecord[]>;
}
