/** The little of opentype.js and wawoff2 the test fonts use (neither package ships types). */
declare module "opentype.js" {
  class Path {
    moveTo(x: number, y: number): void;
    lineTo(x: number, y: number): void;
    close(): void;
  }
  class Glyph {
    constructor(options: { name: string; unicode: number; advanceWidth: number; path: Path });
  }
  class Font {
    constructor(options: Record<string, unknown>);
    tables: Record<string, unknown>;
    toArrayBuffer(): ArrayBuffer;
  }
  const opentype: { Path: typeof Path; Glyph: typeof Glyph; Font: typeof Font };
  export default opentype;
}

declare module "wawoff2" {
  export function compress(data: Uint8Array): Promise<Uint8Array>;
}
