/**
 * The dashboard's files, embedded in the binary (imported as text, so `bun build --compile`
 * carries them). The script is a few ES modules, one per page; every URL carries a content hash
 * so the files can be cached for good — including the modules' imports of each other, which are
 * rewritten here to the hashed URLs — while a new binary still serves its own.
 */
import indexHtmlText from "./assets/index.html" with { type: "text" };
import stylesheet from "./assets/dashboard.css" with { type: "text" };
import dashboardJs from "./assets/dashboard.js" with { type: "text" };
import apiJs from "./assets/api.js" with { type: "text" };
import domJs from "./assets/dom.js" with { type: "text" };
import fontsJs from "./assets/fonts.js" with { type: "text" };
import leavingJs from "./assets/leaving.js" with { type: "text" };
import lineDiffJs from "./assets/line-diff.js" with { type: "text" };
import playgroundJs from "./assets/playground.js" with { type: "text" };
import signingKeysJs from "./assets/signing-keys.js" with { type: "text" };
import stateJs from "./assets/state.js" with { type: "text" };
import templateEditorJs from "./assets/template-editor.js" with { type: "text" };
import templateRowsJs from "./assets/template-rows.js" with { type: "text" };
import templatesJs from "./assets/templates.js" with { type: "text" };
import usageJs from "./assets/usage.js" with { type: "text" };
import webhooksJs from "./assets/webhooks.js" with { type: "text" };
import { editorBundle } from "./editor-bundle.ts" with { type: "macro" };

/** CodeMirror and the editor's code pane, bundled when this file is transpiled (see editor-bundle.ts). */
const codeEditorJs: string = editorBundle();

const SCRIPTS: Record<string, string> = {
  "dashboard.js": dashboardJs,
  "api.js": apiJs,
  "dom.js": domJs,
  "fonts.js": fontsJs,
  "leaving.js": leavingJs,
  "line-diff.js": lineDiffJs,
  "playground.js": playgroundJs,
  "signing-keys.js": signingKeysJs,
  "state.js": stateJs,
  "template-editor.js": templateEditorJs,
  "template-rows.js": templateRowsJs,
  "templates.js": templatesJs,
  "code-editor.js": codeEditorJs,
  "usage.js": usageJs,
  "webhooks.js": webhooksJs,
};

export interface Asset {
  body: string;
  type: string;
  /**
   * The body gzipped, for browsers that accept it (the editor's bundle is 370 KB, 120 KB
   * gzipped); undefined for a file too small to be worth the header. Compressed at its first
   * request or by `warmDashboardAssets`, not at start-up (≈ 20 ms of it), then kept.
   */
  gzipped(): Uint8Array | undefined;
}

/** Smaller files are not worth the header. */
const GZIP_FROM_BYTES = 1024;
/** By file name: a file's body is the same for the life of the process. */
const gzippedBodies = new Map<string, Uint8Array>();
const asset = (name: string, body: string, type: string): Asset => ({
  body,
  type,
  gzipped() {
    if (body.length < GZIP_FROM_BYTES) return undefined;
    let bytes = gzippedBodies.get(name);
    if (!bytes) gzippedBodies.set(name, (bytes = Bun.gzipSync(body)));
    return bytes;
  },
});

export interface DashboardAssets {
  /** The page, with hashed asset URLs. */
  page: string;
  /** By file name (`dashboard.js`, `dashboard.css`, …). */
  files: Map<string, Asset>;
}

export function dashboardAssets(): DashboardAssets {
  // bun-types declares every `.html` import as an HTMLBundle (Bun's full-stack dev server); with
  // `type: "text"` it is the file's text, which is what is served here.
  const indexHtml = indexHtmlText as unknown as string;
  const version = Bun.hash(Object.values(SCRIPTS).join("\n") + stylesheet).toString(36);
  const files = new Map<string, Asset>();
  for (const [name, text] of Object.entries(SCRIPTS)) {
    // Static imports and dynamic import("./x.js") both get the hashed URL.
    const body = text.replace(/(from |import\()"\.\/([a-z-]+\.js)"/g, (_, lead: string, file: string) => `${lead}"./${file}?v=${version}"`);
    files.set(name, asset(name, body, "text/javascript; charset=utf-8"));
  }
  files.set("dashboard.css", asset("dashboard.css", stylesheet, "text/css; charset=utf-8"));
  return { page: indexHtml.replaceAll("{{version}}", version), files };
}

/** Compresses every file ahead of the first dashboard visit (serve.ts calls it once the server is up). */
export function warmDashboardAssets(): void {
  for (const file of dashboardAssets().files.values()) file.gzipped();
}
