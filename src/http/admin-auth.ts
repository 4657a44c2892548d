/** /admin/* is off (404) unless OG_ADMIN_TOKEN is set; then it takes `Authorization: Bearer <token>`. */
import { timingSafeEqual, createHash } from "node:crypto";
import { ApiError } from "../errors.ts";

export const isAdminPath = (pathname: string) => pathname === "/admin" || pathname.startsWith("/admin/");

/** Compares digests so neither the length nor the content of the token leaks through timing. */
const sameSecret = (a: string, b: string) =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());

/** Accepts or refuses a request under /admin. */
export function adminGate(adminToken: string | undefined) {
  return (request: Request): void => {
    if (!adminToken) throw new ApiError("NOT_FOUND", "Not found.");
    const header = request.headers.get("authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    if (!token || !sameSecret(token, adminToken)) {
      throw new ApiError("UNAUTHORIZED", "Admin API needs Authorization: Bearer <OG_ADMIN_TOKEN>.", undefined, { "WWW-Authenticate": "Bearer" });
    }
  };
}
