/**
 * The shape of an account template once parseAccountTemplate (index.ts) has checked it: what
 * every part of the language reads, kept apart from the checks so none of them imports the entry
 * point that runs them.
 */
export interface AccountFieldSpec {
  name: string;
  type: "text" | "image_url" | "color";
  required: boolean;
  max_length?: number;
  description?: string;
}

/** A validated, normalized definition: plain JSON (stored as is, sent to render workers by structured clone). */
export interface AccountTemplateSpec {
  id: string;
  name: string;
  description: string;
  html: string;
  fields: AccountFieldSpec[];
  themes: { dark?: Record<string, string>; light?: Record<string, string> };
  /** The design canvas, default 1200×630, each 200–2400. */
  width: number;
  height: number;
  /** Named sizes (at most 8) the same HTML is drawn at; `size: "<name>"` in a request picks one. Absent when none. */
  sizes?: Record<string, { width: number; height: number }>;
  sample: Record<string, string>;
}
