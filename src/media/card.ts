/**
 * What every card is: the fields every render request takes, the sizes a card may be drawn at,
 * and the bounds on an image field's value. The template language (which refuses a field named
 * like a request field, or a canvas out of bounds) and the render request (src/render/request.ts,
 * which re-exports these) read the same numbers.
 */
import { IMAGE_LIMITS } from "./image-limits.ts";

/** Fields every template accepts. */
export const COMMON_FIELDS = ["template", "theme", "width", "height", "size", "format", "quality"] as const;
export const MIN_SIZE = 200;
export const MAX_SIZE = 2400;
/** The longest http(s) URL an `image_url` field takes, and the longest value of any field in a signed URL's query. */
export const MAX_URL_LENGTH = 2048;
/** What a data: image may decode to: the bound of any one image (IMAGE_LIMITS), so inlining an image never allows more than fetching it. */
export const MAX_IMAGE_BYTES = IMAGE_LIMITS.maxBytes;

/** The longest value a text field without a max_length takes: a title's, any other's. */
export const defaultTextLength = (field: string): number => (field === "title" ? 200 : 300);
