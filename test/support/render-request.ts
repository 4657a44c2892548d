/**
 * A RenderRequest for tests that drive a renderer directly, made the only way the product makes
 * one: `parseRenderRequest` over a body, so the request carries its validated template.
 */
import { parseRenderRequest, type TemplateLookup } from "../../src/render/request.ts";
import type { RenderRequest } from "../../src/render/types.ts";

export interface RenderRequestInput {
  template: string;
  fields: Record<string, string | undefined>;
  theme?: string;
  width?: number;
  height?: number;
  format?: string;
  quality?: number;
}

/** The request as a body (template fields beside the common ones), validated against `templates`. */
export function renderRequest(templates: TemplateLookup, { fields, ...common }: RenderRequestInput): RenderRequest {
  return parseRenderRequest({ ...fields, ...common }, templates);
}
