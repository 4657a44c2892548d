/**
 * Account templates and their versions: the store's first interface of its own (one small
 * interface per aggregate), reached as `store.templates`. Two adapters, shaped alike:
 * `../sqlite/templates.ts` and `../postgres/templates.ts`.
 *
 * Every method is scoped to one account: a template id means something only within the account
 * that created it (two accounts may both have `promo`), and no method reaches another account's
 * rows. The same rules as the Store hold: each method is atomic, operational faults are thrown as
 * StoreUnavailableError, times are epoch ms of the service clock, records are plain objects.
 *
 * The definition is kept as the JSON text the core wrote (validated and normalized before it
 * gets here) together with its SHA-256, so a version can be recognised without reading it.
 */

/** One stored version of a template, with the template's own creation time. */
export interface StoredTemplate {
  accountId: string;
  /** The template id (unique within the account). */
  id: string;
  /** 1 for the first; each update adds one. */
  version: number;
  /** The validated definition as JSON text. */
  definition: string;
  /** Lowercase hex SHA-256 of `definition`. */
  digest: string;
  /** When the template was created (version 1). */
  createdAt: number;
  /** When this version was written. */
  updatedAt: number;
}

/** A template's latest version without its definition. */
export type TemplateListing = Omit<StoredTemplate, "definition">;

/** A version without its definition: what listing versions and resolving a render need. */
export interface TemplateVersionInfo {
  version: number;
  digest: string;
  createdAt: number;
}

export interface NewTemplateVersion {
  accountId: string;
  id: string;
  definition: string;
  digest: string;
  now: number;
}

export interface TemplateStore {
  /**
   * Inserts version 1, unless the account already has a template with this id ("exists") or
   * already has `maxPerAccount` templates ("limit_reached"), both checked in the same transaction.
   */
  create(template: NewTemplateVersion, maxPerAccount: number): Promise<StoredTemplate | "exists" | "limit_reached">;
  /**
   * Adds the next version (latest + 1) and removes versions beyond the newest `keepVersions`, in
   * one transaction; undefined when the account has no template with this id. Concurrent
   * updates get distinct versions.
   */
  update(template: NewTemplateVersion, keepVersions: number): Promise<StoredTemplate | undefined>;
  /** That version (default the latest); undefined when the template or the version does not exist. */
  get(accountId: string, id: string, version?: number): Promise<StoredTemplate | undefined>;
  /**
   * Like `get` without the definition; `latest` is the template's newest version (absent when the
   * template does not exist), so a caller can tell a missing template from a missing version.
   */
  head(accountId: string, id: string, version?: number): Promise<{ latest: number; found: TemplateVersionInfo | undefined } | undefined>;
  /**
   * The latest version of each of the account's templates, by id, without the definitions (up to
   * 256 KiB of HTML each): a caller reads those it does not know by digest with `get`.
   */
  list(accountId: string): Promise<TemplateListing[]>;
  /** The versions kept, oldest first; undefined when the template does not exist. */
  versions(accountId: string, id: string): Promise<TemplateVersionInfo[] | undefined>;
  /** Deletes the template with every version; false when the account has none with this id. */
  delete(accountId: string, id: string): Promise<boolean>;
  /** How many templates the account has. */
  count(accountId: string): Promise<number>;
}
