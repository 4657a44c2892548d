/**
 * The JSX runtime templates compile against (tsconfig `jsxImportSource: "ogsmith"` maps
 * `ogsmith/jsx-runtime` here). It builds the plain `{type, props, key}` objects satori reads,
 * so templates need no React. Templates loaded from OG_TEMPLATES_DIR get the same runtime: the
 * compiled binary resolves `ogsmith/jsx-runtime` to this embedded module.
 */
import type { SatoriNode } from "./types.ts";

/** satori recognises React's fragment symbol and lays its children out in place. */
export const Fragment = Symbol.for("react.fragment");

type Component = (props: any) => SatoriNode;

export function jsx(type: string | Component | typeof Fragment, props: Record<string, unknown>, key?: unknown): SatoriNode {
  // The automatic runtime passes `key` separately, except when it comes after a spread.
  let resolvedKey = key;
  if (props && "key" in props) {
    const { key: propKey, ...rest } = props;
    if (resolvedKey === undefined) resolvedKey = propKey;
    props = rest;
  }
  return {
    type: type as SatoriNode["type"],
    props: props ?? {},
    key: resolvedKey == null ? null : String(resolvedKey),
  };
}

export const jsxs = jsx;
export const jsxDEV = jsx;

type Style = Record<string, string | number | undefined>;

export namespace JSX {
  export type Element = SatoriNode;
  export interface ElementChildrenAttribute {
    // biome-ignore lint/complexity/noBannedTypes: TypeScript reads the children prop's name from this `{}` shape.
    children: {};
  }
  export interface IntrinsicAttributes {
    key?: string | number | null;
  }
  /** satori supports a subset of HTML; the element names it draws are all plain tags. */
  export interface IntrinsicElements {
    [tag: string]: { style?: Style; children?: unknown; [attr: string]: unknown };
  }
}
