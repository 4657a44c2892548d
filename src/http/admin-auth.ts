/** /admin/* is off (404) unless OG_ADMIN_TOKEN is set; then it takes `Authorization: Bearer <token>`. */
import { timingSafeEqual, createHash } from "node:crypto";
import { Elysia } from "elysia";
import { ApiError } from "../errors.ts";
import { pathnameOf } from "./request-context.ts";

export const isAdminPath = (pathname: string) => pathname === "/admin" || pathname.startsWith("/admin/");

/** Compares digests so neither the length nor the content of the token leaks through timing. */
const sameSecret = (a: string, b: string) =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());

export function adminAuth(adminToken: string | undefined) {
  return new Elysia({ name: "admin-auth" }).onRequest(({ request }) => {
    if (!isAdminPath(pathnameOf(request))) return;
    if (!adminToken) throw new ApiError("NOT_FOUND", "Not found.");
    const header = request.headers.get("authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    if (!token || !sameSecret(token, adminToken)) {
      throw new ApiError("UNAUTHORIZED", "Admin API needs Authorization: Bearer <OG_ADMIN_TOKEN>.", undefined, { "WWW-Authenticate": "Bearer" });
    }
  });
}
