/**
 * The set of templates the service knows. Built-ins are imported statically (so
 * `bun build --compile` embeds them); templates from OG_TEMPLATES_DIR are added at start-up
 * through `add`.
 */
import type { TemplateDefinition } from "./types.ts";
import blog from "../../templates/blog.tsx";
import event from "../../templates/event.tsx";

export const BUILT_IN_TEMPLATES: readonly TemplateDefinition[] = [event, blog];

export interface TemplateRegistry {
  get(id: string): TemplateDefinition | undefined;
  /** Every template, built-ins first, in registration order. */
  list(): TemplateDefinition[];
  /** Adds or replaces a template by id. */
  add(template: TemplateDefinition): void;
}

export function createTemplateRegistry(templates: readonly TemplateDefinition[] = BUILT_IN_TEMPLATES): TemplateRegistry {
  const byId = new Map<string, TemplateDefinition>();
  for (const t of templates) byId.set(t.id, t);
  return {
    get: (id) => byId.get(id),
    list: () => [...byId.values()],
    add: (t) => void byId.set(t.id, t),
  };
}
