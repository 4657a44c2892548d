/**
 * `/docs`: the API reference UI (Scalar, embedded in the binary), configured so nothing leaves the
 * machine: no web fonts from the vendor's host (the page uses local system fonts), no request
 * proxy, no hosted-product buttons (client app, AI agent, MCP, developer tools), no telemetry.
 * The Content-Security-Policy backs that up: the browser itself refuses any other origin.
 */
const CONFIG = {
  url: "/openapi.json",
  withDefaultFonts: false,
  hideClientButton: true,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  telemetry: false,
  hideDarkModeToggle: false,
  documentDownloadType: "json",
  defaultOpenAllTags: true,
  // Requests from "Test request" go straight to this server, never through the vendor's proxy.
  proxyUrl: "",
  // No credentials are pre-filled: the reader types their own key.
  authentication: { preferredSecurityScheme: "apiKey" },
  customCss: [
    `:root { --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }`,
    // The key field's placeholder is a made-up token that reads like a real one: show nothing.
    `input.scalar-password-input::placeholder { color: transparent !important; }`,
    // The sidebar's "Powered by" link points at the vendor's site.
    `a[href^="https://www.scalar.com"], a[href^="https://scalar.com"] { display: none !important; }`,
  ].join("\n"),
};

/** The page is never framed (clickjacking) and never sends its address on to another site. */
export const DOCS_HEADERS = { "x-frame-options": "DENY", "referrer-policy": "no-referrer" } as const;

export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Scalar injects its own styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const escapeAttribute = (text: string) => text.replace(/&/g, "&amp;").replace(/'/g, "&#39;").replace(/</g, "&lt;");

export function docsPage(): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>ogsmith API reference</title>
  </head>
  <body>
    <script id="api-reference" data-url="/openapi.json" data-configuration='${escapeAttribute(JSON.stringify(CONFIG))}'></script>
    <script src="/docs/scalar.js"></script>
  </body>
</html>`;
}
