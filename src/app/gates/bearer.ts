/** What the admin and metrics gates share: the bearer token of a request, and a comparison that leaks nothing through timing. */
import { createHash, timingSafeEqual } from "node:crypto";

/** The token of `Authorization: Bearer <token>`, or "" when there is none. */
export function bearerToken(request: Request): string {
  const header = request.headers.get("authorization") ?? "";
  return header.startsWith("Bearer ") ? header.slice(7).trim() : "";
}

/** Compares digests so neither the length nor the content of the secret leaks through timing. */
export const sameSecret = (a: string, b: string) => timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
