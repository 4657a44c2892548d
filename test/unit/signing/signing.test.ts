/**
 * The signing library against fixed vectors computed outside it (`openssl dgst -sha256 -hmac`
 * over the canonical strings written out by hand), and its properties: the order and the
 * encoding of a query do not change the signature, any change of a parameter does.
 */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { parseRenderRequest } from "../../../src/render/request.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import {
  bodyFromSignedUrl,
  buildSignedUrl,
  canonicalString,
  checkExpiry,
  newSigningKeyId,
  newSigningSecret,
  paramsFromSearch,
  parseDuration,
  parseSignedPath,
  sign,
  signableFromBody,
  SIGNING_KEY_ID_PATTERN,
  SIGNING_SECRET_PATTERN,
  verify,
  withExpiry,
} from "../../../src/signing/index.ts";

const SECRET = "ogsk_0123456789abcdefghijABCDEFGHIJ_-0123456789a";

describe("canonical form and fixed vectors", () => {
  test("fields sorted by name, encodeURIComponent escapes, space as %20", () => {
    const params = { width: "600", title: "Hello World", subtitle: "a&b=c/d ✓" };
    expect(canonicalString("event", "png", params)).toBe("/event.png?subtitle=a%26b%3Dc%2Fd%20%E2%9C%93&title=Hello%20World&width=600");
    expect(sign(SECRET, "event", "png", params)).toBe("796YrREbexKm78AEttytoJXpUgJH98yqb9_CKWzH6AM");
  });

  test("no parameters leave the ? with nothing after it", () => {
    expect(canonicalString("blog", "jpg", {})).toBe("/blog.jpg?");
    expect(sign(SECRET, "blog", "jpg", {})).toBe("Jpa5BTmuBFcfIua1QsDwuARn7w-0BqH3T8SvOK2DEXQ");
  });

  test("repeated names sort by encoded value; !'()*~-_. stay literal, + and ? are escaped", () => {
    const pairs: [string, string][] = [
      ["q", " !'()*~-_.+?"],
      ["exp", "1800000000"],
      ["a", "2"],
      ["a", "10"],
    ];
    expect(canonicalString("event", "webp", pairs)).toBe("/event.webp?a=10&a=2&exp=1800000000&q=%20!'()*~-_.%2B%3F");
    expect(sign(SECRET, "event", "webp", pairs)).toBe("yf-JNM_fObthdH0efTfv_Bv32SDAMCf1rh26QJDHRXo");
  });
});

describe("verify", () => {
  const params = { title: "Launch week", theme: "light", width: "1200" };
  const good = sign(SECRET, "event", "png", params);

  test("accepts its own signature whatever order or encoding the query arrives in", () => {
    expect(verify(SECRET, "event", "png", params, good)).toBe(true);
    const reordered = paramsFromSearch("?width=1200&theme=light&title=Launch+week".replace("+", "%20"))!;
    expect(verify(SECRET, "event", "png", reordered, good)).toBe(true);
    // Over-escaped characters a client may send decode to the same values.
    const overEscaped = paramsFromSearch("th%65me=light&%74itle=Launch%20w%65ek&width=1200")!;
    expect(verify(SECRET, "event", "png", overEscaped, good)).toBe(true);
  });

  test("refuses any change: a value, a name, an added field, the template, the extension, the secret", () => {
    expect(verify(SECRET, "event", "png", { ...params, title: "Launch week!" }, good)).toBe(false);
    expect(verify(SECRET, "event", "png", { ...params, width: "1201" }, good)).toBe(false);
    expect(verify(SECRET, "event", "png", { ...params, height: "630" }, good)).toBe(false);
    expect(verify(SECRET, "blog", "png", params, good)).toBe(false);
    expect(verify(SECRET, "event", "jpg", params, good)).toBe(false);
    expect(verify(SECRET.replace(/a$/, "b"), "event", "png", params, good)).toBe(false);
  });

  test("malformed signatures are false, not errors: wrong length, padding, non-base64url, non-canonical last character", () => {
    for (const bad of [
      "",
      good.slice(0, -1),
      `${good}=`,
      `${good}A`,
      good.replace(/^./, "+"),
      good.replace(/^./, "/"),
      `${good.slice(0, -1)}${good.endsWith("A") ? "B" : "A"}`,
    ]) {
      expect(verify(SECRET, "event", "png", params, bad)).toBe(false);
    }
    // The last of 43 base64url characters carries 4 bits of the digest and 2 zero bits: the variants
    // that differ only in those 2 bits decode to the same bytes, and are refused as non-canonical.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(good.at(-1)!);
    const sibling = good.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(sibling, "base64url").equals(Buffer.from(good, "base64url"))).toBe(true);
    expect(verify(SECRET, "event", "png", params, sibling)).toBe(false);
  });

  test("paramsFromSearch rejects a malformed escape", () => {
    expect(paramsFromSearch("title=%E0%A4%A")).toBeUndefined();
    expect(paramsFromSearch("")).toEqual([]);
    expect(paramsFromSearch("?a=1&&b")).toEqual([
      ["a", "1"],
      ["b", ""],
    ]);
  });
});

describe("expiry", () => {
  const now = Date.UTC(2027, 0, 1, 12, 0, 0);

  test("withExpiry adds exp in Unix seconds; checkExpiry reads it back", () => {
    const params = withExpiry({ title: "x" }, 3600, now + 999);
    expect(params.exp).toBe(String(now / 1000 + 3600));
    expect(checkExpiry(params, now)).toEqual({ state: "valid", secondsLeft: 3600 });
    expect(checkExpiry(params, now + 3_599_000)).toEqual({ state: "valid", secondsLeft: 1 });
    expect(checkExpiry(params, now + 3_600_000)).toEqual({ state: "expired" });
    expect(checkExpiry({ title: "x" }, now)).toEqual({ state: "none" });
    for (const exp of ["", "-1", "1e9", "12.5", "soon"]) expect(checkExpiry({ exp }, now)).toEqual({ state: "invalid" });
    expect(
      checkExpiry(
        [
          ["exp", "1"],
          ["exp", "2"],
        ],
        now,
      ),
    ).toEqual({ state: "invalid" });
    expect(() => withExpiry({}, 0, now)).toThrow(RangeError);
  });

  test("parseDuration", () => {
    expect(parseDuration("90")).toBe(90);
    expect(parseDuration("90s")).toBe(90);
    expect(parseDuration("15m")).toBe(900);
    expect(parseDuration("12h")).toBe(43_200);
    expect(parseDuration("7d")).toBe(604_800);
    expect(parseDuration("2w")).toBe(1_209_600);
    for (const bad of ["", "0", "0d", "7x", "-1d", "1.5h", "d"]) expect(parseDuration(bad)).toBeUndefined();
  });
});

describe("URLs", () => {
  test("a body becomes template, extension and string parameters; the URL carries the canonical query", () => {
    const image = signableFromBody({ template: "blog", format: "jpeg", quality: 80, title: "Hi there", width: 600, subtitle: "", logo_url: null });
    expect(image).toEqual({ template: "blog", ext: "jpg", params: { quality: "80", title: "Hi there", width: "600" } });
    const url = buildSignedUrl({ baseUrl: "https://og.example.com/", keyId: "sk_abcdefghij0123456789", secret: SECRET, ...image });
    const signature = sign(SECRET, "blog", "jpg", image.params);
    expect(url).toBe(`https://og.example.com/i/sk_abcdefghij0123456789/${signature}/blog.jpg?quality=80&title=Hi%20there&width=600`);
    // What a server sees when it parses the URL verifies.
    const parsed = new URL(url);
    const [, , keyId, sig, file] = parsed.pathname.split("/");
    expect(keyId).toBe("sk_abcdefghij0123456789");
    expect(file).toBe("blog.jpg");
    expect(verify(SECRET, "blog", "jpg", paramsFromSearch(parsed.search)!, sig!)).toBe(true);
  });

  test("parseSignedPath takes a built URL's path apart and refuses other shapes", () => {
    const url = new URL(
      buildSignedUrl({ baseUrl: "https://x.test", keyId: "sk_abcdefghij0123456789", secret: SECRET, template: "event", ext: "webp", params: { title: "t" } }),
    );
    expect(parseSignedPath(url.pathname)).toEqual({
      keyId: "sk_abcdefghij0123456789",
      signature: sign(SECRET, "event", "webp", { title: "t" }),
      template: "event",
      ext: "webp",
    });
    for (const bad of [
      "/i/sk_x/sig/event.gif",
      "/i/sk_x/sig/event",
      "/i/sk_x/event.png",
      "/i/sk_x/sig/ev%2Fent.png",
      "/x/sk_x/sig/event.png",
      "/i/sk_x/sig/event.png/",
    ]) {
      expect(parseSignedPath(bad)).toBeUndefined();
    }
  });

  test("defaults and errors of signableFromBody", () => {
    expect(signableFromBody({ title: "x" })).toEqual({ template: "event", ext: "png", params: { title: "x" } });
    expect(signableFromBody({ title: "x", format: "png" }, "webp").ext).toBe("webp");
    expect(() => signableFromBody([])).toThrow(/body/);
    expect(() => signableFromBody({ title: "x", format: "gif" })).toThrow(/format/);
    expect(() => signableFromBody({ title: { a: 1 } })).toThrow(/title/);
    expect(() => signableFromBody({ template: "../x" })).toThrow(/template/);
    expect(() => signableFromBody({ title: "broken \ud800 text" })).toThrow(/title: must be valid Unicode/);
  });
});

describe("bodyFromSignedUrl", () => {
  const templates = createTemplateRegistry();

  test("a URL's parts validate exactly like the POST body they came from", () => {
    const body = { template: "blog", format: "jpeg", quality: 70, width: 600, height: 315, title: "Hi", author_name: "Ada" };
    const image = signableFromBody(body);
    const url = new URL(
      buildSignedUrl({
        baseUrl: "https://x.test",
        keyId: "sk_abcdefghij0123456789",
        secret: SECRET,
        ...image,
        params: withExpiry(image.params, 60, Date.now()),
      }),
    );
    const path = parseSignedPath(url.pathname)!;
    const back = bodyFromSignedUrl(path.template, path.ext, paramsFromSearch(url.search)!);
    expect(back).toEqual(body);
    expect(parseRenderRequest(back, templates)).toEqual(parseRenderRequest(body, templates));
  });

  test("numbers that are not plain decimals stay strings, so validation names the field", () => {
    const back = bodyFromSignedUrl("event", "png", { title: "x", width: "6e2", quality: "-1", height: "630" });
    expect(back).toMatchObject({ width: "6e2", quality: "-1", height: 630 });
    try {
      parseRenderRequest(back, templates);
      throw new Error("expected a validation error");
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).details!.map((d) => d.field).sort()).toEqual(["quality", "width"]);
    }
  });

  test("repeated names and template/format in the query are refused, each named", () => {
    try {
      bodyFromSignedUrl("event", "png", [
        ["title", "a"],
        ["title", "b"],
        ["format", "webp"],
        ["template", "blog"],
      ]);
      throw new Error("expected a validation error");
    } catch (error) {
      expect((error as ApiError).code).toBe("VALIDATION_ERROR");
      expect((error as ApiError).details!.map((d) => d.field)).toEqual(["title", "format", "template"]);
    }
  });
});

describe("keys", () => {
  test("ids and secrets have their documented shapes and do not repeat", () => {
    const ids = new Set(Array.from({ length: 200 }, newSigningKeyId));
    const secrets = new Set(Array.from({ length: 200 }, newSigningSecret));
    expect(ids.size).toBe(200);
    expect(secrets.size).toBe(200);
    for (const id of ids) expect(id).toMatch(SIGNING_KEY_ID_PATTERN);
    for (const secret of secrets) expect(secret).toMatch(SIGNING_SECRET_PATTERN);
  });
});
