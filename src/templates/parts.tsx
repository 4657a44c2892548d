/** @jsxImportSource ogsmith */
/** Visual pieces the built-in templates share, so event and blog read as one family. */
import type { SatoriNode } from "./types.ts";

export interface GlowSpec {
  corner: "top-right" | "bottom-left" | "top-left" | "bottom-right";
  width: number;
  height: number;
  color: string;
}

/**
 * A radial glow centred on a corner of the card, fading out within its own box. resvg's cost
 * for a gradient grows with the area it covers (a full-card radial gradient was ~10 ms of a
 * render), so each glow only covers the corner it lights. The ellipse reaches the box's far
 * edges at 70.7% of its radius, so stopping at 70% leaves no visible box edge.
 */
export function Glow({ corner, width, height, color }: GlowSpec): SatoriNode {
  const [vertical, horizontal] = corner.split("-") as ["top" | "bottom", "left" | "right"];
  const at = `${horizontal === "right" ? "100%" : "0%"} ${vertical === "top" ? "0%" : "100%"}`;
  return (
    <div
      style={{
        position: "absolute",
        [vertical]: 0,
        [horizontal]: 0,
        width,
        height,
        backgroundImage: `radial-gradient(ellipse at ${at}, ${color} 0%, rgba(0, 0, 0, 0) 70%)`,
      }}
    />
  );
}

/** Positioned boxes paint above in-flow ones (as in CSS), so content is positioned too, after the glows. */
export const ABOVE_GLOWS = { position: "relative" } as const;

/** A round photo on a gradient ring: the ring is a disc behind a slightly smaller image. */
export function RingedAvatar({ src, size, ring }: { src: string; size: number; ring: string }): SatoriNode {
  return (
    <div
      style={{
        display: "flex",
        width: size + 8,
        height: size + 8,
        borderRadius: "50%",
        backgroundImage: ring,
        alignItems: "center",
        justifyContent: "center",
        flexShrink: 0,
      }}
    >
      <img src={src} width={size} height={size} style={{ borderRadius: "50%", objectFit: "cover" }} />
    </div>
  );
}
