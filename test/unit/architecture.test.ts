/**
 * The dependency rule of docs/architecture.md, checked on the source so it cannot break
 * silently: the core never imports a face, `src/http` is plumbing that knows nothing of the app
 * built on it, no two source files need each other at run time, within the core the template
 * language sits below the renderer that draws it (no src/templates ⇄ src/render loop), the store
 * knows nothing of the core it serves, no two folders of the core need each other, and no two
 * files anywhere (the store and the renderer named apart) need each other even for a type.
 */
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { REPO_ROOT } from "../support/process.ts";

/** The faces: what serves a user (HTTP app, routes, CLI, job worker, entry points) and the web framework. */
const FACE_FOLDERS = ["src/app", "src/http", "src/modules", "src/cli", "src/worker"];
const FACE_FILES = ["src/main.ts", "src/serve.ts"];
const FACE_PACKAGES = ["elysia", "@elysiajs/"];
/** The core's feature folders: the domain logic, above the store. */
const FEATURE_FOLDERS = ["accounts", "metering", "events", "webhooks", "email", "signing", "sessions", "templates", "render", "media", "batches", "net"].map(
  (name) => `src/${name}`,
);
/** The core and the store below it; every other file directly under src/ is the base. */
const CORE_FOLDERS = [...FEATURE_FOLDERS, "src/store"];
/**
 * Core folders that sit below others: [lower, upper] means no file under `lower` imports one
 * under `upper`, not even for a type. The renderer draws templates, so the template language
 * imports nothing of it; what both need (card sizes, image sniffing and limits, the SVG
 * allow-list, the bundled font families) is in src/media, which imports neither.
 */
const BELOW: Array<[lower: string, upper: string]> = [
  ["src/templates", "src/render"],
  ["src/media", "src/templates"],
  ["src/media", "src/render"],
];

/** What every render engine is given and gives back; the engines import it, never the reverse. */
const ENGINE_SEAM = "src/render/engines/engine.ts";

interface Import {
  /** A repository path (`src/http/app.ts`) for a relative specifier, else the specifier itself (a package). */
  target: string;
  /** `import type …` / `export type …`: erased before run time. */
  typeOnly: boolean;
}

interface SourceFile {
  path: string;
  imports: Import[];
}

const IMPORT =
  /(?:^|\n)[ \t]*(?:import|export)\s+(type\s+)?[^;]*?\sfrom\s*["']([^"']+)["']|(?:^|\n)[ \t]*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(path: string, text: string): Import[] {
  return [...text.matchAll(IMPORT)].map((m) => {
    const specifier = (m[2] ?? m[3] ?? m[4])!;
    return { target: specifier.startsWith(".") ? normalize(join(dirname(path), specifier)) : specifier, typeOnly: m[1] !== undefined };
  });
}

const under = (path: string, folder: string) => path.startsWith(folder + "/");
const isFace = (target: string) =>
  FACE_FOLDERS.some((folder) => under(target, folder)) ||
  FACE_FILES.includes(target) ||
  FACE_PACKAGES.some((name) => target === name || (name.endsWith("/") && target.startsWith(name)));
const isCoreOrBase = (path: string) => CORE_FOLDERS.some((folder) => under(path, folder)) || (dirname(path) === "src" && !FACE_FILES.includes(path));

/** "file → import" for each import of a face by a core or base file (type-only imports count too). */
function coreImportsOfFaces(files: SourceFile[]): string[] {
  return files.filter((f) => isCoreOrBase(f.path)).flatMap((f) => f.imports.filter((i) => isFace(i.target)).map((i) => `${f.path} → ${i.target}`));
}

/** "file → import" for each import by `src/http` of what is built on it: the app, the routes, the other faces. */
function plumbingImportsOfApp(files: SourceFile[]): string[] {
  const above = ["src/app", "src/modules", "src/cli", "src/worker"];
  return files
    .filter((f) => under(f.path, "src/http"))
    .flatMap((f) =>
      f.imports.filter((i) => above.some((folder) => under(i.target, folder)) || FACE_FILES.includes(i.target)).map((i) => `${f.path} → ${i.target}`),
    );
}

/** "file → import" for each import, type-only ones included, of a folder by a folder BELOW it. */
function importsFromAbove(files: SourceFile[], below: Array<[string, string]>): string[] {
  return below.flatMap(([lower, upper]) =>
    files.filter((f) => under(f.path, lower)).flatMap((f) => f.imports.filter((i) => under(i.target, upper)).map((i) => `${f.path} → ${i.target}`)),
  );
}

/** "file → import" for each import, type-only ones included, of a feature folder by a file under src/store. */
function storeImportsOfFeatures(files: SourceFile[]): string[] {
  return files
    .filter((f) => under(f.path, "src/store"))
    .flatMap((f) => f.imports.filter((i) => FEATURE_FOLDERS.some((folder) => under(i.target, folder))).map((i) => `${f.path} → ${i.target}`));
}

/** The core folder a path is in (`src/render/sandbox/child.ts` → `src/render`), or undefined. */
const coreFolderOf = (path: string) => CORE_FOLDERS.find((folder) => under(path, folder));

/**
 * Each group of core folders that import each other, type-only imports included, with the file
 * imports that close the circle ("src/a → src/b: src/a/x.ts → src/b/y.ts, …").
 */
function folderCycles(files: SourceFile[]): string[][] {
  const edges = new Map<string, Map<string, string[]>>();
  for (const f of files) {
    const from = coreFolderOf(f.path);
    if (!from) continue;
    for (const i of f.imports) {
      const to = coreFolderOf(i.target);
      const line = `${f.path} → ${i.target}`;
      if (!to || to === from) continue;
      const out = edges.get(from) ?? edges.set(from, new Map()).get(from)!;
      (out.get(to) ?? out.set(to, []).get(to)!).push(line);
    }
  }
  const folders: SourceFile[] = [...edges].map(([folder, out]) => ({ path: folder, imports: [...out.keys()].map((target) => ({ target, typeOnly: true })) }));
  const known = new Set(CORE_FOLDERS);
  return importCycles(
    folders.concat(CORE_FOLDERS.filter((folder) => !edges.has(folder)).map((path) => ({ path, imports: [] }))).filter((f) => known.has(f.path)),
    { typeOnlyToo: true },
  ).map((component) =>
    component.flatMap((from) =>
      [...(edges.get(from) ?? [])].filter(([to]) => component.includes(to)).map(([to, lines]) => `${from} → ${to}: ${lines.join(", ")}`),
    ),
  );
}

/** Each group of files that import each other at run time (type-only imports are erased, so they do not count). */
function runtimeCycles(files: SourceFile[]): string[][] {
  return importCycles(files, { typeOnlyToo: false });
}

/**
 * Each group of files that import each other, type-only imports included: harmless at run time,
 * but a circle still means neither file can be read, moved or split without the other.
 */
function typeCycles(files: SourceFile[]): string[][] {
  return importCycles(files, { typeOnlyToo: true });
}

function importCycles(files: SourceFile[], { typeOnlyToo }: { typeOnlyToo: boolean }): string[][] {
  const known = new Set(files.map((f) => f.path));
  const edges = new Map(files.map((f) => [f.path, f.imports.filter((i) => (typeOnlyToo || !i.typeOnly) && known.has(i.target)).map((i) => i.target)]));
  // Tarjan's strongly connected components; a component of more than one file is a cycle.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

function sources(): SourceFile[] {
  return [...new Glob("src/**/*.{ts,tsx}").scanSync(REPO_ROOT)]
    .sort()
    .map((path) => ({ path, imports: importsOf(path, readFileSync(join(REPO_ROOT, path), "utf8")) }));
}

describe("the dependency rule (docs/architecture.md)", () => {
  const files = sources();

  test("the source tree is read and its imports found", () => {
    expect(files.length).toBeGreaterThan(100);
    const serve = files.find((f) => f.path === "src/serve.ts")!;
    expect(serve.imports.map((i) => i.target)).toContain("src/app/app.ts");
  });

  test("no core or base file imports a face (src/app, src/http, src/modules, src/cli, src/worker, main.ts, serve.ts, elysia)", () => {
    expect(coreImportsOfFaces(files)).toEqual([]);
  });

  test("src/http is plumbing: it imports nothing of the app, the routes or the other faces", () => {
    expect(plumbingImportsOfApp(files)).toEqual([]);
  });

  test("the template language sits below the renderer: nothing under src/templates (or src/media) imports src/render, not even a type", () => {
    expect(importsFromAbove(files, BELOW)).toEqual([]);
  });

  test("no source files import each other at run time", () => {
    expect(runtimeCycles(files)).toEqual([]);
  });

  test("no files under src/store import each other, not even for types", () => {
    expect(typeCycles(files.filter((f) => under(f.path, "src/store")))).toEqual([]);
  });

  test("the store knows nothing of the core: no file under src/store imports a feature folder, not even a type", () => {
    expect(storeImportsOfFeatures(files)).toEqual([]);
  });

  test("no two folders of the core import each other, through any circle, not even for types", () => {
    expect(folderCycles(files)).toEqual([]);
  });

  test("no files under src/render import each other, not even for types", () => {
    expect(typeCycles(files.filter((f) => under(f.path, "src/render")))).toEqual([]);
  });

  test("no files anywhere under src import each other through any circle, not even for types", () => {
    expect(typeCycles(files)).toEqual([]);
  });

  test("the engine seam imports no engine: each engine imports it, and only in-process.ts knows them all", () => {
    const seam = files.find((f) => f.path === ENGINE_SEAM)!;
    expect(seam.imports.filter((i) => under(i.target, "src/render/engines")).map((i) => i.target)).toEqual([]);
  });
});

describe("docs/architecture.md", () => {
  test("names only paths that exist", () => {
    const text = readFileSync(join(REPO_ROOT, "docs", "architecture.md"), "utf8");
    const tracked = [...new Glob("{src,test,bench,scripts,templates,migrations}/**/*").scanSync({ cwd: REPO_ROOT, dot: true, onlyFiles: false })];
    const named = new Set<string>();
    // Paths in backticks (`src/http/body.ts`, `migrations/sqlite/`) and those in the tier diagram.
    for (const [, token] of text.matchAll(/`([^`\s]+)`/g)) named.add(token!);
    for (const [token] of text.matchAll(/(?<![\w/.])(?:src|test|bench|scripts|migrations|templates)\/[\w./-]*/g)) named.add(token);
    const missing = [...named]
      .filter((token) => !token.includes("<") && !token.includes("*") && !token.includes("("))
      .filter((token) => token.includes("/") || /\.(ts|tsx|jsonc?|sh|toml)$/.test(token))
      .filter((token) => !token.startsWith("/") && !token.includes("://"))
      .filter((token) => {
        const path = token.replace(/\/$/, "");
        if (existsSync(join(REPO_ROOT, path))) return false;
        // A path not from the root (`sqlite/`, `gates.ts`) is relative to the folder the text is about.
        return /^(src|test|bench|scripts|migrations|templates)\//.test(path) || !tracked.some((file) => file.endsWith("/" + path));
      });
    expect(missing).toEqual([]);
    expect(named.size).toBeGreaterThan(50);
  });
});

describe("the checks themselves", () => {
  const file = (path: string, text: string): SourceFile => ({ path, imports: importsOf(path, text) });

  test("catch a core file that imports a face, by any kind of import", () => {
    const files = [
      file("src/metering/quota.ts", `import { Elysia } from "elysia";\nimport type { App } from "../app/app.ts";`),
      file("src/accounts/keys.ts", `export { x } from "../http/rate-limit.ts";\nconst m = await import("../serve.ts");`),
      file("src/config.ts", `import {\n  openapi,\n} from "@elysiajs/openapi";`),
      file("src/render/pool.ts", `import { clock } from "../clock.ts";\nimport { Worker } from "node:worker_threads";`),
    ];
    expect(coreImportsOfFaces(files)).toEqual([
      "src/metering/quota.ts → elysia",
      "src/metering/quota.ts → src/app/app.ts",
      "src/accounts/keys.ts → src/http/rate-limit.ts",
      "src/accounts/keys.ts → src/serve.ts",
      "src/config.ts → @elysiajs/openapi",
    ]);
    // A face importing the core is the rule, not a breach of it.
    expect(coreImportsOfFaces([file("src/app/app.ts", `import { x } from "../metering/quota.ts";`), file("src/main.ts", `import "./serve.ts";`)])).toEqual([]);
  });

  test("catch src/http importing the app or a route", () => {
    expect(
      plumbingImportsOfApp([
        file(
          "src/http/body.ts",
          `import { createApp } from "../app/app.ts";\nimport { x } from "../modules/usage/index.ts";\nimport { e } from "../errors.ts";`,
        ),
      ]),
    ).toEqual(["src/http/body.ts → src/app/app.ts", "src/http/body.ts → src/modules/usage/index.ts"]);
  });

  test("catch a folder importing one above it, by a type-only import too, and only in that direction", () => {
    const files = [
      file("src/templates/account/paint-cost.ts", `import { MAX_SIZE } from "../../render/request.ts";`),
      file("src/templates/account-templates.ts", `import type { RenderFonts } from "../render/account-fonts.ts";`),
      file("src/media/card.ts", `import { x } from "../templates/types.ts";`),
      file("src/render/preview.ts", `import { parseAccountTemplate } from "../templates/account/index.ts";\nimport { MAX_SIZE } from "../media/card.ts";`),
    ];
    expect(importsFromAbove(files, BELOW)).toEqual([
      "src/templates/account/paint-cost.ts → src/render/request.ts",
      "src/templates/account-templates.ts → src/render/account-fonts.ts",
      "src/media/card.ts → src/templates/types.ts",
    ]);
  });

  test("catch a store file importing a feature folder, by a type-only import too; the store's own files and the base pass", () => {
    const files = [
      file(
        "src/store/sqlite/tx.ts",
        `import type { SettleTx } from "../../events/settlement.ts";
import { newId } from "../../ids.ts";`,
      ),
      file(
        "src/store/postgres/jobs.ts",
        `import { claimJobs } from "../../events/lane-claim.ts";
import type { JobsPort } from "../ports/jobs.ts";`,
      ),
      file(
        "src/store/sqlite/store.ts",
        `import { DeliveryLog } from "../../webhooks/delivery-log.ts";
import { TestClock } from "../../clock.ts";`,
      ),
      file("src/events/fan-out.ts", `import type { OutboxTx } from "../store/ports/tx.ts";`),
    ];
    expect(storeImportsOfFeatures(files)).toEqual([
      "src/store/sqlite/tx.ts → src/events/settlement.ts",
      "src/store/postgres/jobs.ts → src/events/lane-claim.ts",
      "src/store/sqlite/store.ts → src/webhooks/delivery-log.ts",
    ]);
  });

  test("catch a circle of core folders, through a type-only import and through three folders, and name the imports that close it", () => {
    const two = [
      file("src/events/settlement.ts", `import type { DeliveryLog } from "../webhooks/delivery-log.ts";`),
      file("src/webhooks/delivery-job.ts", `import { envelopeBody } from "../events/envelope.ts";`),
    ];
    expect(folderCycles(two)).toEqual([
      [
        "src/events → src/webhooks: src/events/settlement.ts → src/webhooks/delivery-log.ts",
        "src/webhooks → src/events: src/webhooks/delivery-job.ts → src/events/envelope.ts",
      ],
    ]);
    const three = [
      file("src/email/index.ts", `import { DeliveryJob } from "../webhooks/delivery-job.ts";`),
      file("src/webhooks/index.ts", `import type { JobQueue } from "../events/jobs.ts";`),
      file("src/events/fan-out.ts", `import { raiseAlert } from "../email/raise.ts";`),
      file("src/render/sandbox/child.ts", `import { x } from "../../templates/index.ts";`),
    ];
    expect(folderCycles(three).map((cycle) => cycle.length)).toEqual([3]);
    // The store importing a routine of the core closes a circle with the core's import of the store's types.
    const storeToCore = [
      file("src/store/sqlite/usage.ts", `import { afterCount } from "../../metering/counting.ts";`),
      file("src/metering/counting.ts", `import type { CountTx } from "../store/ports/tx.ts";`),
    ];
    expect(folderCycles(storeToCore)).toHaveLength(1);
    expect(folderCycles(storeToCore.slice(1))).toEqual([]);
  });

  test("catch a cycle through a dynamic import; a type-only one passes at run time but not as a type cycle", () => {
    const cycle = [
      file("src/cli/render.ts", `const { batch } = await import("./render-batch.ts");`),
      file("src/cli/render-batch.ts", `import { slugify } from "./render.ts";`),
    ];
    expect(runtimeCycles(cycle)).toEqual([["src/cli/render-batch.ts", "src/cli/render.ts"]]);
    const typeOnly = [
      file("src/store/index.ts", `const m = await import("./sqlite/index.ts");`),
      file("src/store/sqlite/index.ts", `import type { StoreOptions } from "../index.ts";`),
    ];
    expect(runtimeCycles(typeOnly)).toEqual([]);
    expect(typeCycles(typeOnly)).toEqual([["src/store/index.ts", "src/store/sqlite/index.ts"]]);
  });
});
