/**
 * The bounds of one image of an `image_url` field, fetched or given as a data: URI. Their own
 * module so that request validation (which bounds a data: value by what it decodes to) needs
 * none of the fetcher's machinery.
 */
export const IMAGE_LIMITS = {
  timeoutMs: 5_000,
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 3,
  /** Decoded size cap: a 5 MiB PNG can still unpack to gigabytes of pixels. */
  maxPixels: 40_000_000,
} as const;
