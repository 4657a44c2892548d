/**
 * The dashboard's session cookie: written by the dashboard's sign-in and sign-out routes, read by
 * the dashboard gate (src/app/gates/dashboard.ts) and by signing out.
 */
export const SESSION_COOKIE = "ogsmith_session";

export function readCookie(request: Request, name: string): string | undefined {
  // Bun's own Cookie header parser (decoding, quoting) rather than a hand-rolled split.
  return new Bun.CookieMap(request.headers.get("cookie") ?? "").get(name) ?? undefined;
}
