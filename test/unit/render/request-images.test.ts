/**
 * How an `image_url` value is bounded (src/render/request.ts): an http(s) URL by its length
 * (2,048, or the field's own max_length), a data: image in a body by what it decodes to (5 MiB,
 * whitespace in the base64 not counted), and every value of a signed URL by 2,048 characters.
 */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import {
  decodedSizeOfDataUri,
  MAX_DATA_URI_LENGTH,
  MAX_IMAGE_BYTES,
  type ParseOptions,
  parseRenderRequest,
  type TemplateLookup,
} from "../../../src/render/request.ts";
import type { TemplateDefinition } from "../../../src/templates/types.ts";

const CARD: TemplateDefinition = {
  id: "card",
  description: "A card with two image fields",
  fields: [
    { name: "title", type: "text", required: true },
    { name: "photo", type: "image_url" },
    { name: "badge", type: "image_url", maxLength: 100 },
  ],
  render: () => ({ type: "div", props: {} }) as never,
};
const templates: TemplateLookup = { get: (id) => (id === CARD.id ? CARD : undefined), list: () => [CARD] };

/** The problems parsing `fields` gives, as `field: message`, or [] when it is accepted. */
function problems(fields: Record<string, unknown>, options?: ParseOptions): string[] {
  try {
    parseRenderRequest({ template: "card", title: "t", ...fields }, templates, options);
    return [];
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return (error.details ?? []).map((d) => `${d.field}: ${d.message}`);
  }
}

/** A data: URI whose payload decodes to exactly `bytes` bytes. */
const dataUri = (bytes: number) => `data:image/png;base64,${Buffer.alloc(bytes).toString("base64")}`;

describe("data: images in a body", () => {
  test("are bounded by what they decode to, not by 2,048 characters", () => {
    expect(problems({ photo: dataUri(10_000) })).toEqual([]);
    expect(problems({ photo: dataUri(MAX_IMAGE_BYTES) })).toEqual([]);
    expect(problems({ photo: dataUri(MAX_IMAGE_BYTES + 1) })).toEqual([
      `photo: must decode to at most 5 MiB (5242880 bytes) as a data: image (got ${MAX_IMAGE_BYTES + 1} bytes)`,
    ]);
  });

  test("a field's own max_length bounds its URLs only", () => {
    expect(problems({ badge: dataUri(10_000) })).toEqual([]);
    expect(problems({ badge: `https://example.com/${"b".repeat(81)}` })).toEqual(["badge: must be at most 100 characters (got 101)"]);
  });

  test("line breaks in the base64 are not counted as data; a value of mostly whitespace is still bounded", () => {
    const wrapped = dataUri(MAX_IMAGE_BYTES).replace(/(.{76})/g, "$1\r\n");
    expect(decodedSizeOfDataUri(wrapped)).toBe(MAX_IMAGE_BYTES);
    expect(problems({ photo: wrapped })).toEqual([]);
    const padded = `data:image/png;base64,AAAA${" ".repeat(MAX_DATA_URI_LENGTH)}`;
    expect(problems({ photo: padded })).toEqual([`photo: must be at most ${MAX_DATA_URI_LENGTH} characters as a data: image (got ${padded.length})`]);
  });

  test("each image field is checked on its own, and every bad one is named", () => {
    expect(problems({ photo: dataUri(MAX_IMAGE_BYTES + 3), badge: "ftp://example.com/x.png" })).toEqual([
      `photo: must decode to at most 5 MiB (5242880 bytes) as a data: image (got ${MAX_IMAGE_BYTES + 3} bytes)`,
      "badge: must use http or https (or be a data:image/…;base64 URI)",
    ]);
  });

  test("http(s) URLs keep 2,048 characters", () => {
    expect(problems({ photo: `https://example.com/${"a".repeat(2028)}` })).toEqual([]);
    expect(problems({ photo: `https://example.com/${"a".repeat(2029)}` })).toEqual(["photo: must be at most 2048 characters (got 2049)"]);
  });
});

describe("values of a signed URL", () => {
  test("a data: image is held to 2,048 characters like any value", () => {
    const short = dataUri(1_000);
    expect(short.length).toBeLessThan(2048);
    expect(problems({ photo: short }, { values: "url" })).toEqual([]);
    const long = dataUri(2_000);
    expect(problems({ photo: long }, { values: "url" })).toEqual([
      `photo: must be at most 2048 characters in a signed URL (got ${long.length}); a larger data: image (up to 5 MiB) goes in the body of POST /api/generate`,
    ]);
    expect(problems({ badge: short }, { values: "url" })).toEqual([
      `badge: must be at most 100 characters in a signed URL (got ${short.length}); a larger data: image (up to 5 MiB) goes in the body of POST /api/generate`,
    ]);
  });
});
