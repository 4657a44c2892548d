/**
 * An element's styles: its Tailwind classes expanded first, then its style attribute (which
 * wins, as in satori), each declaration read and checked against the CSS allow-list, with
 * Tailwind's preflight where the template uses classes; and the lengths the reader needs from
 * them (font size, widths, paddings) to bound text fitting.
 */
import type { P5Element } from "./html-context.ts";
import { attributeValueOffset, type Context, report } from "./html-context.ts";
import { checkDataImage } from "../../media/svg-safety.ts";
import {
  CSS_BOUNDS,
  camelCaseProperty,
  clipValue,
  COLOR_PROPERTIES,
  EFFECT_PROPERTIES,
  kebabCaseProperty,
  parseDeclaration,
  splitDeclarations,
} from "./css.ts";
import { embeddedImageProblem } from "./images.ts";
import { clip } from "./placeholders.ts";
import { expandClasses } from "./tailwind.ts";
import { type Declaration, type ElementNode, isDeclaration, type StyleValue, type ThemedValue } from "./tree.ts";

export function readStyles(node: P5Element, ctx: Context, element: ElementNode): void {
  const classAttribute = node.attrs.find((a) => a.name === "class");
  if (classAttribute?.value.trim()) {
    const offset = attributeValueOffset(ctx, node, "class");
    if (classAttribute.value.includes("{{")) report(ctx, offset, "placeholders cannot be used in class");
    else {
      const expanded = expandClasses(classAttribute.value, ctx.canvas);
      for (const p of expanded.problems) report(ctx, offset + p.offset, p.message);
      for (const [property, value] of expanded.style) {
        const read = parseDeclaration(property, value, dataUriCheck);
        if ("problem" in read) report(ctx, offset, `class expands to a value out of bounds: ${read.problem}`);
        else {
          const declaration = sameForBothThemes(value, read);
          if (countEffect(ctx, property, declaration, offset)) element.style.push([property, declaration]);
        }
      }
    }
  }
  const styleAttribute = node.attrs.find((a) => a.name === "style");
  if (styleAttribute) {
    const offset = attributeValueOffset(ctx, node, "style");
    for (const declaration of splitDeclarations(styleAttribute.value)) {
      const parsed = readDeclaration(ctx, declaration.property, declaration.value.replace(/\s*!important\s*$/i, ""), offset + declaration.offset);
      if (parsed && countEffect(ctx, parsed[0], parsed[1], offset + declaration.offset)) element.style.push(parsed);
    }
  }
  // Tailwind's preflight gives every element `border-width: 0; border-style: solid`, so that
  // `border-t border-slate-300` is a 1px top rule and nothing more. Under the element's own
  // declarations, and only where it draws a border at all, so other trees stay as they were.
  if (ctx.tailwind && element.style.some(([property]) => BORDER_PROPERTY.test(property))) {
    element.style.unshift(["borderWidth", TAILWIND_BORDER_WIDTH], ["borderStyle", TAILWIND_BORDER_STYLE]);
  }
  // The preflight also takes the browser's margins off paragraphs and headings, and gives
  // headings the size and weight of the text around them: `<h1 class="text-6xl">` is 72 px with
  // no margin, `<p class="mt-4">` has no bottom margin. Only what the element does not set itself.
  if (ctx.tailwind && PREFLIGHT_BLOCKS.has(element.tag)) {
    const own = new Set(element.style.map(([property]) => property));
    const reset: Array<[string, StyleValue]> = [];
    if (!own.has("margin")) for (const side of ["marginTop", "marginBottom"] as const) if (!own.has(side)) reset.push([side, PREFLIGHT_RESET[side]]);
    if (element.tag !== "p" && !own.has("fontSize")) reset.push(["fontSize", PREFLIGHT_RESET.fontSize]);
    if (element.tag !== "p" && !own.has("fontWeight")) reset.push(["fontWeight", PREFLIGHT_RESET.fontWeight]);
    element.style.unshift(...reset);
  }
}

/** A declaration that names no theme variable: both themes draw the one value read. */
function sameForBothThemes(source: string, read: { value: ThemedValue["value"]; urls: string[] }): Declaration {
  const themed: ThemedValue = { text: source, value: read.value, urls: read.urls };
  return { source, dark: themed, light: themed };
}

/** A declaration the language writes itself (always valid). */
function ownDeclaration(property: string, value: string): Declaration {
  const read = parseDeclaration(property, value, () => undefined);
  if ("problem" in read) throw new Error(`the language's own ${property}: ${value} is refused: ${read.problem}`);
  return sameForBothThemes(value, read);
}

const TAILWIND_BORDER_WIDTH = ownDeclaration("borderWidth", "0");
const TAILWIND_BORDER_STYLE = ownDeclaration("borderStyle", "solid");

/** Elements the browser gives margins (and headings a size and weight) that Tailwind's preflight takes off. */
const PREFLIGHT_BLOCKS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6"]);

/** What the preflight sets on those elements, where they do not set it themselves. */
const PREFLIGHT_RESET = {
  marginTop: ownDeclaration("marginTop", "0"),
  marginBottom: ownDeclaration("marginBottom", "0"),
  fontSize: ownDeclaration("fontSize", "1em"),
  // The language takes no `inherit` from authors (weights are 100–900, normal or bold); the
  // engines do, and it is what the preflight means: the weight of the text around the heading.
  fontWeight: sameForBothThemes("inherit", { value: { kind: "fontWeight" }, urls: [] }),
};

/** Border widths, styles and colours (not radii). */
const BORDER_PROPERTY = /^border(Top|Right|Bottom|Left)?(Width|Style|Color)?$/;

/** Counts shadows and filters across the template; false (reported once) past the bound. */
function countEffect(ctx: Context, property: string, value: StyleValue, offset: number): boolean {
  if (!EFFECT_PROPERTIES.has(property) || (isDeclaration(value) && value.source.trim().toLowerCase() === "none")) return true;
  ctx.effects++;
  if (ctx.effects === CSS_BOUNDS.effects + 1)
    report(ctx, offset, `more than ${CSS_BOUNDS.effects} shadows and filters in one template (box-shadow, text-shadow, filter)`);
  return ctx.effects <= CSS_BOUNDS.effects;
}

const dataUriCheck = (uri: string) => {
  const problem = checkDataImage(uri, "template", 0) ?? embeddedImageProblem(uri);
  return problem && `the image ${problem}`;
};

function readDeclaration(ctx: Context, rawProperty: string, value: string, offset: number): [string, StyleValue] | undefined {
  if (!rawProperty || !/^-?[a-zA-Z][a-zA-Z-]*$/.test(rawProperty)) {
    report(
      ctx,
      offset,
      rawProperty.startsWith("--")
        ? `custom property "${rawProperty}": define theme variables in themes and use var(--name)`
        : `"${clip(rawProperty || value)}" is not a CSS declaration (property: value)`,
    );
    return undefined;
  }
  const property = camelCaseProperty(rawProperty);
  if (!value) {
    report(ctx, offset, `CSS property "${rawProperty}" has no value`);
    return undefined;
  }
  if (value.includes("{{")) {
    const whole = /^\{\{\s*([a-z][a-z0-9_]{0,63})\s*\}\}$/.exec(value);
    const field = whole ? ctx.fields.get(whole[1]!) : undefined;
    if (whole && !field) report(ctx, offset, `placeholder {{${whole[1]}}} names no declared field (declare it in fields)`);
    else if (field?.type !== "color") {
      report(
        ctx,
        offset,
        `inside style, a placeholder may only be a whole value naming a color field (${kebabCaseProperty(property)}: {{brand}}), not "${clipValue(value)}"`,
      );
    } else if (!COLOR_PROPERTIES.has(property))
      report(
        ctx,
        offset,
        `a color placeholder cannot stand for "${kebabCaseProperty(property)}" (use it in ${[...COLOR_PROPERTIES].map(kebabCaseProperty).join(", ")})`,
      );
    else return [property, { field: field.name }];
    return undefined;
  }
  if (/@font-face|@import/i.test(value)) {
    report(ctx, offset, `${rawProperty}: @font-face and @import are not allowed; fonts are the server's`);
    return undefined;
  }
  const variables = [...value.matchAll(/var\(\s*--([a-zA-Z][a-zA-Z0-9_-]*)\s*(?:,[^)]*)?\)/g)].map((m) => m[1]!);
  if (variables.length) {
    const unknown = variables.filter((name) => !(name in ctx.themes.dark) && !(name in ctx.themes.light));
    if (unknown.length) {
      report(ctx, offset, `theme variable --${unknown[0]} is not defined in themes`);
      return undefined;
    }
    // Checked, and read, as each theme will draw it.
    const themed: Partial<Record<"dark" | "light", ThemedValue>> = {};
    for (const theme of ["dark", "light"] as const) {
      const text = resolveVariables(value, ctx.themes[theme]);
      const read = parseDeclaration(property, text, dataUriCheck);
      if ("problem" in read) {
        report(ctx, offset, `${read.problem} (with the ${theme} theme's variables)`);
        return undefined;
      }
      themed[theme] = { text, value: read.value, urls: read.urls };
    }
    return [property, { source: value, dark: themed.dark!, light: themed.light! }];
  }
  const read = parseDeclaration(property, value, dataUriCheck);
  if ("problem" in read) {
    report(ctx, offset, read.problem);
    return undefined;
  }
  return [property, sameForBothThemes(value, read)];
}

/** `var(--name)` → the theme's value (a fallback after the comma when the theme lacks it). */
export function resolveVariables(value: string, variables: Record<string, string>): string {
  return value.replace(
    /var\(\s*--([a-zA-Z][a-zA-Z0-9_-]*)\s*(?:,\s*([^)]*))?\)/g,
    (_, name: string, fallback: string | undefined) => variables[name] ?? fallback?.trim() ?? "",
  );
}

/** The typed value of the last declaration of `property`, when it is the same for both themes. */
export function lastValue(style: Array<[string, StyleValue]>, property: string): ThemedValue["value"] | undefined {
  let found: ThemedValue["value"] | undefined;
  for (const [p, v] of style) if (p === property) found = isDeclaration(v) && v.dark === v.light ? v.dark.value : undefined;
  return found;
}

/** A length of `property` in px, when the template writes it so (`24px`, the same for both themes). */
export function pxOf(style: Array<[string, StyleValue]>, property: string): number | undefined {
  const value = lastValue(style, property);
  const length = value?.kind === "lengths" && value.lengths.length === 1 ? value.lengths[0] : undefined;
  return length !== undefined && length !== "auto" && length.unit === "px" && length.number >= 0 ? length.number : undefined;
}

/** The horizontal padding of the first padding shorthand, counting px (and bare numbers) only. */
export function paddingShorthand(style: Array<[string, StyleValue]>): number | undefined {
  for (const [p, v] of style) {
    if (p !== "padding" || !isDeclaration(v)) continue;
    const value = v.dark === v.light ? v.dark.value : undefined;
    const parts =
      value?.kind === "lengths" ? value.lengths.map((l) => (l !== "auto" && (l.unit === "px" || l.unit === "") && l.number >= 0 ? l.number : 0)) : [0];
    const horizontal = parts.length === 1 ? parts[0]! * 2 : parts.length <= 3 ? parts[1]! * 2 : parts[1]! + parts[3]!;
    return horizontal;
  }
  return undefined;
}

/**
 * The keyword the last declaration of `property` gives, undefined when there is none; "" when
 * it depends on the theme (the tree is the same for both themes, so neither keyword decides).
 */
export function lastKeyword(style: Array<[string, StyleValue]>, property: string): string | undefined {
  let found: string | undefined;
  for (const [p, v] of style) if (p === property) found = isDeclaration(v) && v.dark === v.light && v.dark.value.kind === "keyword" ? v.dark.value.word : "";
  return found;
}
