/** @jsxImportSource ogsmith */
/** Visual pieces the built-in templates share, so event and blog read as one family. */
import { clampStyle, estimateLines, fitFontSize, isRightToLeft, textDirectionStyle } from "./kit.ts";
import type { SatoriNode } from "./types.ts";

/**
 * Which way a card reads. When its main text (the title) is right-to-left, the whole card is
 * mirrored, as a page with `dir="rtl"` would be: rows run from the right (`row`), what sat on the
 * left edge sits on the right (`start`/`end`), images pin to the other side, and glows light
 * the mirrored corners. Every piece of text keeps its own direction (`textDirectionStyle`), so a
 * Latin name in an Arabic card is still written left to right, in its mirrored place.
 */
export interface Direction {
  rtl: boolean;
  /** `flexDirection` of a row: from the reading start. */
  row: "row" | "row-reverse";
  /** The physical side where reading starts and where it ends. */
  start: "left" | "right";
  end: "left" | "right";
}

export function directionOf(mainText: string | undefined): Direction {
  const rtl = isRightToLeft(mainText);
  return rtl ? { rtl, row: "row-reverse", start: "right", end: "left" } : { rtl, row: "row", start: "left", end: "right" };
}

const MIRRORED_CORNER: Record<GlowSpec["corner"], GlowSpec["corner"]> = {
  "top-right": "top-left",
  "top-left": "top-right",
  "bottom-right": "bottom-left",
  "bottom-left": "bottom-right",
};

/** The glows of a card that reads `dir`: mirrored corners when it reads right to left. */
export const glowsFor = (glows: GlowSpec[], dir: Direction): GlowSpec[] => (dir.rtl ? glows.map((g) => ({ ...g, corner: MIRRORED_CORNER[g.corner] })) : glows);

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

/**
 * The card: a full-size column with the palette's background and ink, its corner glows first so
 * that everything after them (positioned with ABOVE_GLOWS) paints on top.
 */
export function Card({
  width,
  height,
  padX,
  padY,
  background,
  ink,
  glows,
  children,
}: {
  width: number;
  height: number;
  padX: number;
  padY: number;
  background: string;
  ink: string;
  glows: GlowSpec[];
  children?: unknown;
}): SatoriNode {
  return (
    <div
      style={{
        display: "flex",
        flexDirection: "column",
        width,
        height,
        // satori follows CSS: without this, padding would be added outside width×height.
        boxSizing: "border-box",
        padding: `${padY}px ${padX}px`,
        backgroundColor: background,
        fontFamily: "Inter",
        color: ink,
      }}
    >
      {glows.map((g) => (
        <Glow {...g} />
      ))}
      {children}
    </div>
  );
}

/** How a title and its optional subtitle share the height left to them. */
export interface HeadlineLayout {
  titleSize: number;
  titleLines: number;
  titleLineHeight: number;
  subtitleSize: number;
  subtitleLineHeight: number;
  /** The space between title and subtitle. */
  gap: number;
}

/**
 * Sizes the headline: the subtitle (at most two lines) takes its room first, and the title gets
 * the largest size from 40px up to `titleMax` that fits what is left, then is clamped to the
 * lines that height holds.
 */
export function fitHeadline(
  title: string,
  subtitle: string | undefined,
  o: {
    width: number;
    height: number;
    titleMax: number;
    titleMaxLines: number;
    titleLineHeight: number;
    subtitleMax: number;
    subtitleLineHeight: number;
    gap: number;
  },
): HeadlineLayout {
  const subtitleSize = subtitle ? fitFontSize(subtitle, { maxWidth: o.width, maxLines: 2, maxSize: o.subtitleMax, minSize: 24 }) : 0;
  const subtitleHeight = subtitle ? Math.min(2, estimateLines(subtitle, subtitleSize, o.width)) * subtitleSize * o.subtitleLineHeight + o.gap : 0;
  const titleSize = fitFontSize(title, {
    maxWidth: o.width,
    maxLines: o.titleMaxLines,
    maxSize: o.titleMax,
    minSize: 40,
    maxHeight: o.height - subtitleHeight,
    lineHeight: o.titleLineHeight,
  });
  const titleLines = Math.min(o.titleMaxLines, Math.max(1, Math.floor((o.height - subtitleHeight) / (titleSize * o.titleLineHeight))));
  return { titleSize, titleLines, titleLineHeight: o.titleLineHeight, subtitleSize, subtitleLineHeight: o.subtitleLineHeight, gap: o.gap };
}

/** The headline block: fills the card's free height and centres the title (and subtitle) in it. */
export function Headline({
  title,
  subtitle,
  layout,
  weight,
  tracking,
  titleColor,
  subtitleColor,
}: {
  title: string;
  subtitle: string | undefined;
  layout: HeadlineLayout;
  weight: number;
  /** Letter spacing as a fraction of the title size (negative tightens). */
  tracking: number;
  titleColor: string;
  subtitleColor: string;
}): SatoriNode {
  const titleClamp = clampStyle(layout.titleLines, layout.titleSize, layout.titleLineHeight);
  const subtitleClamp = clampStyle(2, layout.subtitleSize, layout.subtitleLineHeight);
  return (
    <div style={{ ...ABOVE_GLOWS, display: "flex", flexDirection: "column", flexGrow: 1, justifyContent: "center", minHeight: 0, gap: layout.gap }}>
      <div
        style={{ ...titleClamp, fontWeight: weight, letterSpacing: layout.titleSize * tracking, color: titleColor, ...textDirectionStyle(title, titleClamp) }}
      >
        {title}
      </div>
      {subtitle ? (
        <div style={{ ...subtitleClamp, fontWeight: 400, color: subtitleColor, ...textDirectionStyle(subtitle, subtitleClamp) }}>{subtitle}</div>
      ) : null}
    </div>
  );
}
