/** /admin/* is off (404) unless OG_ADMIN_TOKEN is set; then it takes `Authorization: Bearer <token>`. */
import { ApiError } from "../../errors.ts";
import { bearerToken, sameSecret } from "./bearer.ts";

export const isAdminPath = (pathname: string) => pathname === "/admin" || pathname.startsWith("/admin/");

/** Accepts or refuses a request under /admin. */
export function adminGate(adminToken: string | undefined) {
  return (request: Request): void => {
    if (!adminToken) throw new ApiError("NOT_FOUND", "Not found.");
    const token = bearerToken(request);
    if (!token || !sameSecret(token, adminToken)) {
      throw new ApiError("UNAUTHORIZED", "Admin API needs Authorization: Bearer <OG_ADMIN_TOKEN>.", undefined, { "WWW-Authenticate": "Bearer" });
    }
  };
}
