/**
 * Two rules on where an answer may go. With OG_BASE_URL set, the server answers only requests addressed to that host: any other
 * `Host` is 421 MISDIRECTED_REQUEST. A page whose own name was made to resolve to an internal
 * deployment (DNS rebinding) then reads nothing — the browser sends the page's name as Host.
 *
 * Left open: /healthz and /readyz (orchestrators probe by address, and they reveal nothing), and
 * /metrics while it needs a token (scrapers address it by IP; a page cannot know the token).
 * A reverse proxy in front must pass the client's Host on (nginx: `proxy_set_header Host $host`).
 */
import type { Config } from "../config.ts";
import { ApiError } from "../errors.ts";

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/** The check for one request, or undefined when every Host is accepted (OG_BASE_URL unset). */
export function hostCheck(config: Pick<Config, "publicOrigin" | "metricsPublic">): ((request: Request, pathname: string) => void) | undefined {
  if (!config.publicOrigin) return undefined;
  const url = new URL(config.publicOrigin);
  const accepted = new Set([url.host.toLowerCase(), `${url.hostname.toLowerCase()}:${url.port || DEFAULT_PORTS[url.protocol]}`]);
  const open = new Set(["/healthz", "/readyz", ...(config.metricsPublic ? [] : ["/metrics"])]);
  return (request, pathname) => {
    if (open.has(pathname)) return;
    const host = (request.headers.get("host") ?? "").toLowerCase();
    if (accepted.has(host)) return;
    throw new ApiError("MISDIRECTED_REQUEST", `This server answers for ${url.host} only (OG_BASE_URL).`);
  };
}

/** Paths whose answers carry one account's data or secrets (API keys, signing secrets, webhook secrets). */
export const isPrivatePath = (pathname: string): boolean =>
  pathname.startsWith("/api/") || pathname.startsWith("/admin/") || pathname.startsWith("/dashboard/api/");
