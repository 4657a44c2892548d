/**
 * What every grammar in this folder shares: postcss-value-parser's nodes (a value is tokenized
 * once, in css-declarations.ts, and each grammar reads the nodes), how a grammar reports a
 * problem, and the helpers that split a node list the way CSS does.
 */
import valueParser, { type Node as ValueNode } from "postcss-value-parser";

export type { ValueNode };

/** A grammar reports each problem it finds; css-declarations.ts keeps the first. */
export type Report = (message: string) => void;

/**
 * One property's grammar: the typed value it reads from `nodes` (the tokens of `value`), or
 * undefined after reporting why the value is not one.
 */
export type Grammar<T> = (value: string, nodes: ValueNode[], report: Report) => T | undefined;

export const stringify = (nodes: ValueNode | ValueNode[]): string => valueParser.stringify(nodes);

/** Every word, at any depth. */
export function words(nodes: ValueNode[]): string[] {
  const out: string[] = [];
  valueParser.walk(nodes, (node) => {
    if (node.type === "word") out.push(node.value);
  });
  return out;
}

/** Top-level comma-separated groups of a node list (layers, shadows, stops). */
export function commaGroups(nodes: ValueNode[]): ValueNode[][] {
  const groups: ValueNode[][] = [[]];
  for (const node of nodes) {
    if (node.type === "div" && node.value === ",") groups.push([]);
    else groups[groups.length - 1]!.push(node);
  }
  return groups;
}

export const significant = (nodes: ValueNode[]): ValueNode[] => nodes.filter((n) => n.type !== "space" && n.type !== "comment");

/** A value in a message: one line, at most `max` characters. */
export function clipValue(text: string, max = 60): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}
