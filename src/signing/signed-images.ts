/**
 * Serving a signed public image URL (`/i/{key_id}/{signature}/{template}.{ext}?{query}`), apart
 * from its HTTP answer. Two steps:
 *
 * - `admit`: key id known and its account active → signature → `exp` → validation exactly as
 *   POST /api/generate. A URL already verified skips the HMAC and the validation, never the key
 *   and account check nor `exp`.
 * - `deliver`: the image's bytes, counted once per account per calendar month by its content
 *   address. Only an image not yet counted meets the rate limit and then the quota; concurrent
 *   fetches of one image (a crawler's) wait for one counting attempt instead of each reserving a
 *   unit.
 *
 * The store decides whether an image counts, in the transaction that confirms its unit; this
 * service only remembers what the store said, so that a counted image's repeats ask it nothing.
 */
import { LRUCache } from "lru-cache";
import { subscriptionBlock } from "../accounts/access.ts";
import type { Clock } from "../clock.ts";
import { ApiError, validationError } from "../errors.ts";
import type { Metering } from "../metering/quota.ts";
import { parseAccountRenderRequest } from "../render/account-request.ts";
import type { PreparedRender } from "../render/render-front.ts";
import type { TemplateLookup } from "../render/request.ts";
import type { Renderer, RenderRequest, RenderResult } from "../render/types.ts";
import type { AccountRecord } from "../store/types.ts";
import type { AccountTemplateService } from "../templates/account-templates.ts";
import { bodyFromSignedUrl, checkExpiry, paramsFromSearch, parseSignedPath, verify } from "./index.ts";
import type { SigningKeyService } from "./keys.ts";

/** The service's renderer; one that can address an image before drawing it (`prepare`) lets a counted repeat skip the work. */
export type SignedImageRenderer = Renderer & { prepare?: (request: RenderRequest) => Promise<PreparedRender> };

export interface SignedImageDeps {
  metering: Pick<Metering, "currentPeriod" | "isImageCounted" | "withImageUnit">;
  signingKeys: Pick<SigningKeyService, "resolve" | "touch" | "rateLimitKeyOf">;
  accountTemplates: Pick<AccountTemplateService, "resolve" | "ids" | "fontsFor">;
  clock: Clock;
  renderer: SignedImageRenderer;
  templates: TemplateLookup;
  /** How many verified URLs and counted images this instance remembers (defaults: 10,000 and 100,000). */
  remember?: { verifiedUrls?: number; countedImages?: number };
}

/** A signed URL that passed every check `admit` makes. */
export interface AdmittedImage {
  account: AccountRecord;
  keyId: string;
  /** The template's id, as POST /api/generate reports it in `image.generated`. */
  template: string;
  prepared: PreparedRender;
  /** Seconds until the URL's `exp` (always more than 0), when it has one. */
  secondsLeft: number | undefined;
  /** Names an account template without `v`: its image follows the template's latest version. */
  unpinned: boolean;
}

export interface DeliveryContext {
  /** Named in the `image.generated` event when this fetch is the one that counts the image. */
  requestId: string;
  /**
   * Applies the account's rate limit to a fetch about to be counted, throwing its refusal (the
   * HTTP face's, which also writes the RateLimit-* fields). `rateLimitKey` is the window the
   * account's API calls use, so both together stay within the plan's rate.
   */
  meetRateLimit(rateLimitKey: string, account: AccountRecord): Promise<void>;
}

/** A URL whose signature was verified and whose query was validated. */
interface VerifiedUrl {
  keyId: string;
  template: string;
  prepared: PreparedRender;
  /** `exp` in Unix seconds, when the URL has one. */
  exp: number | undefined;
  unpinned: boolean;
}

const expired = () => new ApiError("URL_EXPIRED", "This image URL has expired (exp is in the past).");
const invalidSignature = () => new ApiError("INVALID_SIGNATURE", "Invalid signature: unknown signing key, or the URL is not what was signed.");

export class SignedImageService {
  /**
   * Verified URLs by request target (path and query): a crawler's repeat skips the HMAC, the
   * validation and the content address. Safe because a key's secret never changes (a deleted
   * key is refused before this is consulted) and `exp` is checked on every request. URLs with
   * fetched images are not kept (their address follows the fetched bytes), nor those of an
   * account template (looked up on every request, so a new version or a deletion applies at
   * once, on every instance).
   */
  private readonly verified: LRUCache<string, VerifiedUrl>;
  /**
   * Images known to be counted, by account, month and content address: only facts the store
   * stated (it counted the image, or said it was counted), so a miss just asks the store again.
   * The month in the key retires last month's entries by itself.
   */
  private readonly counted: LRUCache<string, true>;
  /** The one counting attempt in progress per (account, month, address); identical fetches wait for it. */
  private readonly counting = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: SignedImageDeps) {
    this.verified = new LRUCache({ max: deps.remember?.verifiedUrls ?? 10_000 });
    // Bounded by a size of one per entry rather than `max`: lru-cache allocates `max` slots up
    // front, and 100,000 of them cost ≈ 10 ms of every start for a record that fills over days.
    this.counted = new LRUCache({ maxSize: deps.remember?.countedImages ?? 100_000, sizeCalculation: () => 1 });
  }

  /** Every check before counting, in the order of docs/api.md ("Public signed image URLs"); throws the refusal. */
  async admit(url: { pathname: string; search: string }): Promise<AdmittedImage> {
    const { signingKeys, clock } = this.deps;
    const path = parseSignedPath(url.pathname);
    if (!path) throw invalidSignature();
    const owner = await signingKeys.resolve(path.keyId);
    if (!owner) throw invalidSignature();
    const blocked = subscriptionBlock(owner.account);
    if (blocked) throw blocked;
    const target = url.pathname + url.search;
    let entry = this.verified.get(target);
    if (!entry || entry.keyId !== owner.key.id) {
      const params = paramsFromSearch(url.search);
      if (!params || !verify(owner.key.secret, path.template, path.ext, params, path.signature)) throw invalidSignature();
      const expiry = checkExpiry(params, clock.now());
      if (expiry.state === "expired") throw expired();
      if (expiry.state === "invalid") throw validationError([{ field: "exp", message: "must be one Unix time in whole seconds" }]);
      const body = bodyFromSignedUrl(path.template, path.ext, params);
      const renderRequest = await parseAccountRenderRequest(body, {
        accountId: owner.account.id,
        templates: this.deps.templates,
        accountTemplates: this.deps.accountTemplates,
        callerIsAccount: false,
        values: "url",
      });
      entry = {
        keyId: owner.key.id,
        template: renderRequest.template,
        prepared: await this.prepare(renderRequest),
        exp: expiry.state === "valid" ? Math.floor(clock.now() / 1000) + expiry.secondsLeft : undefined,
        unpinned: renderRequest.accountTemplate !== undefined && body.template_version === undefined,
      };
      const fetchesImages = renderRequest.definition.fields.some((field) => field.type === "image_url" && renderRequest.fields[field.name]);
      if (!fetchesImages && !renderRequest.accountTemplate) this.verified.set(target, entry);
    }
    signingKeys.touch(owner.key.id);
    const secondsLeft = entry.exp === undefined ? undefined : entry.exp - Math.floor(clock.now() / 1000);
    if (secondsLeft !== undefined && secondsLeft <= 0) throw expired();
    return { account: owner.account, keyId: owner.key.id, template: entry.template, prepared: entry.prepared, secondsLeft, unpinned: entry.unpinned };
  }

  /** The image's bytes; counts it (rate limit, then quota) unless it was counted this month. */
  async deliver(image: AdmittedImage, context: DeliveryContext): Promise<RenderResult> {
    const { account, prepared } = image;
    const key = `${account.id}|${this.deps.metering.currentPeriod()}|${prepared.contentAddress}`;
    if (this.counted.has(key)) return prepared.render();
    const shared = this.counting.get(key);
    if (shared) {
      // Its refusal (rate limit, quota) is this fetch's too: the image is still not counted.
      await shared;
      return prepared.render();
    }
    const attempt = this.countOnce(image, context);
    this.counting.set(key, attempt);
    try {
      const result = await attempt;
      this.counted.set(key, true);
      return result;
    } finally {
      this.counting.delete(key);
    }
  }

  private async countOnce({ account, prepared, template }: AdmittedImage, context: DeliveryContext): Promise<RenderResult> {
    const { metering, signingKeys } = this.deps;
    if (await metering.isImageCounted(account.id, prepared.contentAddress)) return prepared.render();
    await context.meetRateLimit(await signingKeys.rateLimitKeyOf(account.id), account);
    const { result } = await metering.withImageUnit(account, prepared.contentAddress, async () => {
      const result = await prepared.render();
      return {
        result,
        facts: { requestId: context.requestId, template, width: result.width, height: result.height, generationTimeMs: result.generationTimeMs },
      };
    });
    return result;
  }

  private prepare(request: RenderRequest): Promise<PreparedRender> {
    const { renderer } = this.deps;
    if (renderer.prepare) return renderer.prepare(request);
    // A renderer without content addresses (never the service's): render now, address by bytes.
    return renderer
      .render(request)
      .then((result) => ({ contentAddress: result.contentAddress ?? Bun.hash(result.bytes).toString(16), render: async () => result }));
  }
}
