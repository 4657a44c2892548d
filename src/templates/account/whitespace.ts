/**
 * HTML's whitespace rule for an element with inline flow (tree.ts `flow`), applied once its
 * children are drawn with the request's values (so sections are settled): whitespace between
 * inline content — text, values, and inline elements such as <b> or <span> — is one space;
 * whitespace at the element's start or end, or next to a box (a <div>, an image, an element
 * given a display), is not drawn. Inline elements are looked into: `Hi <b> there</b>` keeps the
 * space before "there", and `Hi <b>{{name}}</b> !` keeps both.
 *
 * Both engines lay a row's children out as separate boxes and drop the spaces at a box's edge,
 * so in a row a kept space at the edge of a piece of text is written as a no-break space
 * (U+00A0), which both draw. Inside a piece the ordinary spaces stay, so text still wraps there.
 * In a `display: block` element the engines flow the text themselves and the space stays ordinary.
 */
import type { SatoriNode } from "../types.ts";

export const NO_BREAK_SPACE = "\u00a0";

type Child = SatoriNode | string;

interface TextRun {
  list: Child[];
  index: number;
  /** Whitespace before the text, the text, whitespace after it (the text empty: all whitespace). */
  lead: boolean;
  core: string;
  trail: boolean;
  keepLead: boolean;
  keepTrail: boolean;
}

const LEADING = /^[ \t\n\f\r]+/;
const TRAILING = /[ \t\n\f\r]+$/;

/**
 * Settles the whitespace of `children` in place (an element's drawn children, strings and
 * nodes); `inline` holds the nodes drawn as inline elements of this flow, whose own children
 * are settled along with these. Text left empty is removed.
 */
export function settleWhitespace(children: Child[], inline: WeakSet<SatoriNode>, space: string): Child[] {
  const sequence: Array<TextRun | "box"> = [];
  const lists: Array<{ list: Child[]; node?: SatoriNode }> = [{ list: children }];
  const walk = (list: Child[]) => {
    for (let index = 0; index < list.length; index++) {
      const child = list[index]!;
      if (typeof child === "string") {
        const lead = LEADING.exec(child)?.[0].length ?? 0;
        const core = child.slice(lead).replace(TRAILING, "");
        sequence.push({ list, index, lead: lead > 0, core, trail: core !== "" && TRAILING.test(child), keepLead: false, keepTrail: false });
      } else if (inline.has(child)) {
        const own = child.props.children;
        const kids: Child[] = own === undefined ? [] : Array.isArray(own) ? (own as Child[]) : [own as Child];
        lists.push({ list: kids, node: child });
        walk(kids);
      } else sequence.push("box");
    }
  };
  walk(children);

  // The first whitespace after text, waiting for more text (kept) or a box or the end (dropped).
  let pending: { run: TextRun; at: "lead" | "trail" } | undefined;
  let afterText = false;
  for (const item of sequence) {
    if (item === "box") {
      pending = undefined;
      afterText = false;
      continue;
    }
    if (item.core === "") {
      if (item.lead && afterText && !pending) pending = { run: item, at: "lead" };
      continue;
    }
    if (item.lead && afterText && !pending) pending = { run: item, at: "lead" };
    if (pending) {
      if (pending.at === "lead") pending.run.keepLead = true;
      else pending.run.keepTrail = true;
      pending = undefined;
    }
    afterText = true;
    if (item.trail) pending = { run: item, at: "trail" };
  }

  for (const run of sequence) {
    if (run === "box") continue;
    run.list[run.index] = (run.keepLead ? space : "") + run.core + (run.keepTrail ? space : "");
  }
  for (const { list, node } of lists) {
    const kept = list.filter((child) => child !== "");
    if (!node) continue;
    if (kept.length === 0) delete node.props.children;
    else node.props.children = kept.length === 1 ? kept[0] : kept;
  }
  return children.filter((child) => child !== "");
}
