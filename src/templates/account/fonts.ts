/**
 * The families an account template names (`font-family`, Tailwind's `font-sans`, `font-serif`,
 * `font-mono` and `font-[…]`), and what each is drawn with: a bundled family (Inter; the bundled
 * serif and monospace faces, which the generic names stand for) or one of the account's own
 * fonts (render/fonts/account-fonts.ts). Which names a template may use is checked when it is created
 * or updated (account-templates.ts) and again for every render, since fonts can be deleted.
 */
import { LRUCache } from "lru-cache";
import type { FieldProblem } from "../../errors.ts";
import { BUNDLED_FAMILIES, bundledFamilyOf, MONO_FAMILY, SERIF_FAMILY } from "../../media/font-families.ts";
import { orientationOf } from "./html-context.ts";
import { parseTemplateHtml, usesOrientation } from "./html.ts";
import type { AccountTemplateSpec } from "./index.ts";
import { isDeclaration, type TemplateNode } from "./tree.ts";

export { familyNames } from "./values/font.ts";

/** One `font-family` list of a template: its names, and where it is (for a problem's line and column). */
export interface FamilyUse {
  names: string[];
  line?: number;
  column?: number;
}

export interface TemplateFamilies {
  /** Every list, as written (theme variables put in, for each theme). */
  uses: FamilyUse[];
  /** Names that are neither bundled nor generic: the account's own fonts must have them (lowercase, sorted). */
  own: string[];
  /** The bundled serif and monospace families the template names (they are loaded only for cards that do). */
  bundled: string[];
}

const byContent = new LRUCache<string, TemplateFamilies>({ max: 256 });

/** What `spec` names, remembered by content (a render reads it for every card of a template version). */
export function templateFamilies(spec: Pick<AccountTemplateSpec, "html" | "fields" | "themes" | "width" | "height">): TemplateFamilies {
  // Most templates name no family at all: nothing to parse for them.
  if (!/font/i.test(spec.html)) return { uses: [], own: [], bundled: [] };
  const key = Bun.hash(JSON.stringify([spec.html, spec.themes, spec.width, spec.height])).toString(36);
  const known = byContent.get(key);
  if (known) return known;
  const found = collect(spec);
  byContent.set(key, found);
  return found;
}

function collect(spec: Pick<AccountTemplateSpec, "html" | "fields" | "themes" | "width" | "height">): TemplateFamilies {
  const uses: FamilyUse[] = [];
  const themes = ["dark", "light"] as const;
  const orientations = usesOrientation(spec.html) ? (["portrait", "landscape"] as const) : [orientationOf(spec)];
  const seen = new Set<string>();
  for (const orientation of orientations) {
    const ignored: FieldProblem[] = [];
    const parsed = parseTemplateHtml(spec, ignored, orientation);
    const walk = (nodes: TemplateNode[]) => {
      for (const node of nodes) {
        if (node.kind === "text") continue;
        if (node.kind === "element") {
          for (const [property, value] of node.style) {
            if (property !== "fontFamily" || !isDeclaration(value)) continue;
            for (const theme of themes) {
              const drawn = value[theme].value;
              const names = drawn.kind === "fontFamily" ? drawn.names : [];
              const id = `${node.at ?? -1}:${names.join(",")}`;
              if (seen.has(id)) continue;
              seen.add(id);
              uses.push({ names, ...(node.at !== undefined ? parsed.positionOf(node.at) : {}) });
            }
          }
        }
        walk(node.children);
      }
    };
    walk(parsed.root);
  }
  const own = new Set<string>();
  const bundled = new Set<string>();
  for (const use of uses) {
    for (const name of use.names) {
      const family = bundledFamilyOf(name);
      if (family === undefined) own.add(name.toLowerCase());
      else if (family === MONO_FAMILY || family === SERIF_FAMILY) bundled.add(family);
    }
  }
  return { uses, own: [...own].sort(), bundled: [...bundled].sort() };
}

/** The names every template may use, for messages. */
export const BUNDLED_NAMES = BUNDLED_FAMILIES.flatMap((entry) => [entry.family, entry.generic]);

/**
 * The problems of a template naming families the account does not have (`has`: lowercase names of
 * its fonts). At create and update every unknown name is a problem; `lenient` (a preview) reports
 * only lists that name nothing at all the server has, as warnings.
 */
export function familyProblems(families: TemplateFamilies, has: (lowercase: string) => boolean, lenient = false): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const reported = new Set<string>();
  for (const use of families.uses) {
    const known = (name: string) => bundledFamilyOf(name) !== undefined || has(name.toLowerCase());
    const where = use.line !== undefined ? { line: use.line, column: use.column } : {};
    if (lenient) {
      if (use.names.length > 0 && !use.names.some(known)) {
        const list = use.names.join(", ");
        if (reported.has(list)) continue;
        reported.add(list);
        problems.push({
          field: "html",
          message: `font-family "${list}" names no font this server has (the account's fonts: GET /api/fonts; bundled: ${BUNDLED_NAMES.join(", ")}); it is drawn in Inter`,
          ...where,
        });
      }
      continue;
    }
    for (const name of use.names) {
      if (known(name) || reported.has(name.toLowerCase())) continue;
      reported.add(name.toLowerCase());
      problems.push({
        field: "html",
        message: `font-family "${name}" is neither one of this account's fonts (POST /api/fonts uploads one) nor a bundled family (${BUNDLED_NAMES.join(", ")})`,
        ...where,
      });
    }
  }
  return problems;
}

/**
 * A font-family value as it is drawn: generic names and bundled families become the bundled
 * family's name, the account's families the names their fonts are registered under for this
 * render (`own`: lowercase family → that name); any other name is left for the renderer, which
 * draws it in Inter.
 */
export function drawnFontFamily(names: string[], own: Record<string, string> | undefined): string {
  return names.map((name) => own?.[name.toLowerCase()] ?? bundledFamilyOf(name) ?? name).join(", ");
}
