/**
 * Account templates: what an account designs as data (docs/templates.md) and keeps in the store
 * with its versions. Create, update (a new version), read, list, delete, and `resolve` for a
 * render. Every operation is scoped to one account; another account's template is reported
 * exactly like a missing one (TEMPLATE_NOT_FOUND), so ids never leak between accounts.
 *
 * Built-in and operator templates (the registry) are code; an account may not take their ids.
 * If an operator later adds an id an account already uses, the account's own template wins for
 * that account (`resolve` is asked first, see render/account-request.ts).
 */
import { LRUCache } from "lru-cache";
import type { Clock } from "../clock.ts";
import { ApiError, type FieldProblem, validationError } from "../errors.ts";
import type { RenderFonts } from "../media/font-families.ts";
import type { StoredTemplate, TemplateStore } from "../store/types.ts";
import { familyProblems, templateFamilies } from "./account/fonts.ts";
import { type AccountTemplateSpec, parseAccountTemplate } from "./account/index.ts";
import { BUILT_IN_TEMPLATES } from "./registry.ts";
import type { TemplateDefinition } from "./types.ts";

export const MAX_TEMPLATES_PER_ACCOUNT = 50;
/** Versions kept per template; an update past it removes the oldest. */
export const MAX_VERSIONS_PER_TEMPLATE = 100;
/** Template ids accounts may choose. */
export const ACCOUNT_TEMPLATE_ID = /^[a-z][a-z0-9_-]{0,39}$/;

export type TemplateSource = "builtin" | "operator" | "account";

/** The templates every account shares (built-in and OG_TEMPLATES_DIR). */
export interface GlobalTemplates {
  get(id: string): TemplateDefinition | undefined;
  list(): TemplateDefinition[];
}

/** A global template's source: a built-in one may have been replaced by an operator's file. */
export function globalSource(template: TemplateDefinition): "builtin" | "operator" {
  return BUILT_IN_TEMPLATES.includes(template) ? "builtin" : "operator";
}

/** Built-in ids are never an account's: a render naming one never needs to ask the store. */
export const isBuiltInId = (id: string): boolean => BUILT_IN_TEMPLATES.some((template) => template.id === id);

/** What the API answers for one version of an account template (the shape `--template-file` reads back). */
export interface AccountTemplateView extends AccountTemplateSpec {
  version: number;
  source: "account";
  created_at: string;
  updated_at: string;
}

/** A template version ready to render. */
export interface ResolvedTemplate {
  version: number;
  /** SHA-256 of the stored definition: unique to this version's content. */
  digest: string;
  spec: AccountTemplateSpec;
}

/** Parsed specs by digest (content address of the definition), so a render does not parse the JSON again and the per-spec memo of the template language keeps working. */
const SPEC_CACHE_ENTRIES = 512;

export class AccountTemplateService {
  private readonly specs = new LRUCache<string, AccountTemplateSpec>({ max: SPEC_CACHE_ENTRIES });

  constructor(
    private readonly store: TemplateStore,
    private readonly clock: Clock,
    /** The account's font families (render/fonts/account-fonts.ts): a template may name only those and the bundled ones. */
    private readonly fonts?: {
      familyKeys(accountId: string): Promise<Set<string>>;
      forTemplate(accountId: string, spec: AccountTemplateSpec, lenient?: boolean): Promise<{ fonts?: RenderFonts; warnings: FieldProblem[] }>;
    },
  ) {}

  /**
   * The fonts a render of `spec` for this account draws with (render/fonts/account-fonts.ts): 400 for a
   * family the account has no font of, or with `lenient` (a preview) a warning instead.
   */
  async fontsFor(accountId: string, spec: AccountTemplateSpec, lenient = false): Promise<{ fonts?: RenderFonts; warnings: FieldProblem[] }> {
    if (this.fonts) return this.fonts.forTemplate(accountId, spec, lenient);
    const families = templateFamilies(spec);
    const problems = familyProblems(families, () => false, lenient);
    if (problems.length && !lenient) throw validationError(problems);
    return { fonts: families.bundled.length ? { faces: [], bundled: families.bundled } : undefined, warnings: problems };
  }

  /** 400 naming each `font-family` name that is neither one of the account's fonts nor bundled. */
  private async checkFamilies(accountId: string, spec: AccountTemplateSpec): Promise<void> {
    const families = templateFamilies(spec);
    if (families.uses.length === 0) return;
    const keys = families.own.length > 0 && this.fonts ? await this.fonts.familyKeys(accountId) : new Set<string>();
    const problems = familyProblems(families, (name) => keys.has(name));
    if (problems.length) throw validationError(problems);
  }

  /** Validates and stores version 1. 409 when the id is a global one, taken in the account, or the account has 50. */
  async create(accountId: string, body: unknown, globals: GlobalTemplates): Promise<AccountTemplateView> {
    // 400 with every problem, positions included (names and descriptions stripped of control
    // and bidi-override characters: people see them in lists, emails and terminals).
    const spec = parseAccountTemplate(body);
    await this.checkFamilies(accountId, spec);
    const global = globals.get(spec.id);
    if (global)
      throw new ApiError(
        "CONFLICT",
        `"${spec.id}" is the id of a${globalSource(global) === "builtin" ? " built-in" : "n operator"} template; choose another id.`,
        [{ field: "id", message: "is taken by a template every account shares" }],
      );
    const created = await this.store.create(this.draft(accountId, spec), MAX_TEMPLATES_PER_ACCOUNT);
    if (created === "exists")
      throw new ApiError("CONFLICT", `This account already has a template "${spec.id}"; PUT /api/templates/${spec.id} adds a version.`, [
        { field: "id", message: "is taken in this account" },
      ]);
    if (created === "limit_reached") throw new ApiError("CONFLICT", `An account can have at most ${MAX_TEMPLATES_PER_ACCOUNT} templates. Delete one first.`);
    return this.view(created, spec);
  }

  /** Stores the next version. 403 for a global id the account does not own, 404 when the account has no such template. */
  async update(accountId: string, id: string, body: unknown, globals: GlobalTemplates): Promise<AccountTemplateView> {
    const global = ACCOUNT_TEMPLATE_ID.test(id) ? globals.get(id) : undefined;
    if (global && (isBuiltInId(id) || !(await this.store.head(accountId, id)))) {
      throw new ApiError(
        "FORBIDDEN",
        `"${id}" is a${globalSource(global) === "builtin" ? " built-in" : "n operator"} template: it cannot be changed through the API.`,
      );
    }
    if (!ACCOUNT_TEMPLATE_ID.test(id)) throw notFound(id);
    const withId = typeof body === "object" && body !== null && !Array.isArray(body) && !("id" in body) ? { ...body, id } : body;
    const spec = parseAccountTemplate(withId);
    if (spec.id !== id) throw validationError([{ field: "id", message: `must be the id in the path (${id}); a template cannot be renamed` }]);
    await this.checkFamilies(accountId, spec);
    const updated = await this.store.update(this.draft(accountId, spec), MAX_VERSIONS_PER_TEMPLATE);
    if (!updated) throw notFound(id);
    return this.view(updated, spec);
  }

  /** The latest version, or version `version`; 404 when the account has no such template or version. */
  async get(accountId: string, id: string, version?: number): Promise<AccountTemplateView> {
    const stored = ACCOUNT_TEMPLATE_ID.test(id) ? await this.store.get(accountId, id, version) : undefined;
    if (!stored) throw version === undefined ? notFound(id) : new ApiError("TEMPLATE_NOT_FOUND", `Template ${id} has no version ${version} in this account.`);
    return this.view(stored);
  }

  /** The latest version of each of the account's templates, by id. */
  async list(accountId: string): Promise<AccountTemplateView[]> {
    const views: AccountTemplateView[] = [];
    for (const listing of await this.store.list(accountId)) {
      // Definitions are read only for versions this process has not seen (they are immutable).
      let spec = this.specs.get(listing.digest);
      if (!spec) {
        const stored = await this.store.get(accountId, listing.id, listing.version);
        if (!stored) continue; // deleted or updated meanwhile
        spec = this.remember(stored.digest, JSON.parse(stored.definition) as AccountTemplateSpec);
      }
      views.push(this.view({ ...listing, definition: "" }, spec));
    }
    return views;
  }

  /** The ids of the account's templates, sorted (no definition is read). */
  async ids(accountId: string): Promise<string[]> {
    return (await this.store.list(accountId)).map((listing) => listing.id);
  }

  async versions(accountId: string, id: string): Promise<{ version: number; created_at: string }[]> {
    const versions = ACCOUNT_TEMPLATE_ID.test(id) ? await this.store.versions(accountId, id) : undefined;
    if (!versions) throw notFound(id);
    return versions.map((v) => ({ version: v.version, created_at: iso(v.createdAt) }));
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!ACCOUNT_TEMPLATE_ID.test(id) || !(await this.store.delete(accountId, id))) throw notFound(id);
  }

  /**
   * The account's template `id` at `version` (default the latest), for a render: undefined when
   * the account has no template with this id, "no_version" when it has, but not that version.
   * One small read (no definition) when the version was seen before.
   */
  async resolve(accountId: string, id: string, version?: number): Promise<ResolvedTemplate | "no_version" | undefined> {
    if (!ACCOUNT_TEMPLATE_ID.test(id)) return undefined;
    const head = await this.store.head(accountId, id, version);
    if (!head) return undefined;
    if (!head.found) return "no_version";
    const { digest } = head.found;
    let spec = this.specs.get(digest);
    if (!spec) {
      const stored = await this.store.get(accountId, id, head.found.version);
      // Deleted, or pruned by a concurrent update, between the two reads.
      if (!stored) return version === undefined ? undefined : "no_version";
      spec = this.remember(digest, JSON.parse(stored.definition) as AccountTemplateSpec);
    }
    return { version: head.found.version, digest, spec };
  }

  private draft(accountId: string, spec: AccountTemplateSpec) {
    const definition = JSON.stringify(spec);
    const digest = new Bun.CryptoHasher("sha256").update(definition).digest("hex");
    this.remember(digest, spec);
    return { accountId, id: spec.id, definition, digest, now: this.clock.now() };
  }

  /** Keeps a parsed spec by its digest (the least recently used go past SPEC_CACHE_ENTRIES). */
  private remember(digest: string, spec: AccountTemplateSpec): AccountTemplateSpec {
    this.specs.set(digest, spec);
    return spec;
  }

  private view(stored: StoredTemplate, spec: AccountTemplateSpec = JSON.parse(stored.definition)): AccountTemplateView {
    return {
      id: stored.id,
      version: stored.version,
      name: spec.name,
      description: spec.description,
      fields: spec.fields,
      themes: spec.themes,
      width: spec.width,
      height: spec.height,
      ...(spec.sizes ? { sizes: spec.sizes } : {}),
      sample: spec.sample,
      html: spec.html,
      source: "account",
      created_at: iso(stored.createdAt),
      updated_at: iso(stored.updatedAt),
    };
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Missing and another account's look the same. */
const notFound = (id: string) => new ApiError("TEMPLATE_NOT_FOUND", `No template ${id} in this account.`);
