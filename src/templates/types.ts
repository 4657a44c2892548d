/**
 * The shape every template has, built-in (in /templates) or loaded from OG_TEMPLATES_DIR:
 * a field schema (drives validation, GET /api/templates and the dashboard playground) and a
 * render function returning a satori element tree.
 */
/** `color`: a CSS colour (account templates use it inside inline styles, e.g. a brand colour). */
export type FieldType = "text" | "image_url" | "color";

export interface TemplateField {
  name: string;
  type: FieldType;
  required?: boolean;
  /** Max characters. Defaults: `title` 200, other text 300, URLs 2048 (docs/templates.md). */
  maxLength?: number;
  description?: string;
}

/** satori's element shape: what the tiny JSX runtime returns. */
export interface SatoriNode {
  type: string | ((props: any) => SatoriNode);
  props: Record<string, unknown> & { children?: unknown };
  key?: string | number | null;
}

export type Theme = "dark" | "light";

export interface RenderContext {
  width: number;
  height: number;
  theme: Theme;
  /**
   * Image fields resolved to something satori can draw (a data: URI of PNG/JPEG/SVG bytes),
   * keyed by field name. A field is absent here when the request did not set it.
   */
  images: Record<string, string | undefined>;
  /**
   * An account template's own font families (lowercase) → the name their faces are registered
   * under for this render (render/fonts/account-fonts.ts); absent when the card uses none.
   */
  fontNames?: Record<string, string>;
}

export interface TemplateDefinition {
  id: string;
  description: string;
  fields: TemplateField[];
  /** The size the template is designed at when not the default 1200×630 (account templates set it). */
  canvas?: { width: number; height: number };
  /** Named sizes a request may pick with `size` (account templates declare them). */
  sizes?: Record<string, { width: number; height: number }>;
  render(fields: Record<string, string | undefined>, ctx: RenderContext): SatoriNode;
}
