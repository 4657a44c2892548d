/** @jsxImportSource ogsmith */
/**
 * `blog`: a post card. Category pill and logo on top, the title as the hero, an
 * optional standfirst (subtitle), and a byline: round author photo, name, "date · reading time".
 *
 * Same family as `event` (Inter, the violet/pink glows of the dark theme, navy ink on paper for
 * light) with its own layout: where event leads with a top accent bar and a ruled footer, blog
 * leads with the category and closes with a byline. Dark is bold: heavy white type, glows from
 * the top-left and bottom-right. Light is formal: a vertical accent stripe on the left edge,
 * lighter weights, no glows.
 * Every field but the title is optional; absent blocks take no space, and the title fills what
 * is left, so a title-only card balances as well as a full one.
 * A right-to-left title (Arabic, Hebrew) mirrors the card: pill and byline from the right, logo
 * and accent on the other side, the light theme's stripe on the right edge; each text keeps its
 * own direction.
 */
import type { RenderContext, SatoriNode, TemplateDefinition, Theme } from "../src/templates/types.ts";
import { present, singleLineStyle, textDirectionStyle, textWidthEm } from "../src/templates/kit.ts";
import { ABOVE_GLOWS, Card, directionOf, fitHeadline, glowsFor, Headline, RingedAvatar, type Direction, type GlowSpec } from "../src/templates/parts.tsx";

interface Palette {
  background: string;
  glows: GlowSpec[];
  /** A stripe down the reading-start edge (light theme only). */
  stripe: string | undefined;
  title: string;
  subtitle: string;
  author: string;
  meta: string;
  dot: string;
  pillBackground: string;
  pillBorder: string;
  pillText: string;
  accentBar: string;
  avatarRing: string;
  titleWeight: number;
}

const PALETTES: Record<Theme, Palette> = {
  dark: {
    background: "#0B0B14",
    glows: [
      { corner: "bottom-right", width: 860, height: 500, color: "rgba(139, 92, 246, 0.55)" },
      { corner: "top-left", width: 620, height: 360, color: "rgba(236, 72, 153, 0.28)" },
    ],
    stripe: undefined,
    title: "#FFFFFF",
    subtitle: "rgba(255, 255, 255, 0.72)",
    author: "#FFFFFF",
    meta: "rgba(228, 228, 240, 0.78)",
    dot: "#C4B5FD",
    pillBackground: "rgba(139, 92, 246, 0.22)",
    pillBorder: "rgba(196, 181, 253, 0.55)",
    pillText: "#E9E3FF",
    accentBar: "linear-gradient(90deg, #8B5CF6 0%, #EC4899 100%)",
    avatarRing: "linear-gradient(135deg, #8B5CF6 0%, #EC4899 100%)",
    titleWeight: 800,
  },
  light: {
    background: "#FCFCFA",
    glows: [],
    stripe: "#1F4FBF",
    title: "#0F1B33",
    subtitle: "#4A5568",
    author: "#0F1B33",
    meta: "#5A6478",
    dot: "#1F4FBF",
    pillBackground: "#EAF0FC",
    pillBorder: "#C9D6F2",
    pillText: "#1F4FBF",
    accentBar: "linear-gradient(90deg, #1F4FBF 0%, #1F4FBF 100%)",
    avatarRing: "linear-gradient(135deg, #1F4FBF 0%, #1F4FBF 100%)",
    titleWeight: 700,
  },
};

const PAD_X = 80;
const PAD_Y = 60;
const TOP_ROW = 64;
const LOGO_W = 280;
const LOGO_H = 64;
const PILL_SIZE = 19;
const PILL_MAX_W = 560;
const AVATAR = 72;
const AUTHOR_SIZE = 28;
const META_SIZE = 23;
const BYLINE_GAP = 36;
const TITLE_LH = 1.1;
const MAX_TITLE_LINES = 4;

/** "6" → "6 min read"; anything else is shown as written ("12 minutes", "5 min read"). */
export function readingTimeLabel(value: string): string {
  const trimmed = value.trim();
  return /^\d{1,3}$/.test(trimmed) ? `${trimmed} min read` : trimmed;
}

function CategoryPill({ text, p }: { text: string; p: Palette }): SatoriNode {
  const label = text.toUpperCase();
  const line = { ...singleLineStyle(PILL_SIZE), lineHeight: 1.2 };
  return (
    <div
      style={{
        display: "flex",
        alignItems: "center",
        maxWidth: PILL_MAX_W,
        minWidth: 0,
        padding: "9px 20px",
        borderRadius: 999,
        backgroundColor: p.pillBackground,
        border: `1.5px solid ${p.pillBorder}`,
      }}
    >
      <div style={{ ...line, fontWeight: 700, letterSpacing: 2, color: p.pillText, minWidth: 0, ...textDirectionStyle(label, line) }}>{label}</div>
    </div>
  );
}

function Byline({ author, avatar, meta, p, dir }: { author?: string; avatar?: string; meta: string[]; p: Palette; dir: Direction }): SatoriNode {
  // With a name, the meta line sits under it; without one, it takes the name's place beside the photo.
  const metaSize = author ? META_SIZE : AUTHOR_SIZE - 2;
  const metaLine = meta.length ? (
    <div style={{ display: "flex", flexDirection: dir.row, alignItems: "center", gap: 14, minWidth: 0, color: p.meta, fontSize: metaSize }}>
      {meta.map((text, i) => (
        <div style={{ display: "flex", flexDirection: dir.row, alignItems: "center", gap: 14, minWidth: 0, flexShrink: 1 }}>
          {i > 0 ? <div style={{ width: 6, height: 6, borderRadius: 3, backgroundColor: p.dot, flexShrink: 0 }} /> : null}
          <div
            style={{
              ...singleLineStyle(metaSize),
              fontWeight: author ? 400 : 600,
              minWidth: 0,
              textAlign: dir.start,
              ...textDirectionStyle(text, singleLineStyle(metaSize)),
            }}
          >
            {text}
          </div>
        </div>
      ))}
    </div>
  ) : null;
  const authorLine = singleLineStyle(AUTHOR_SIZE);
  return (
    <div style={{ ...ABOVE_GLOWS, display: "flex", flexDirection: dir.row, alignItems: "center", gap: 22, flexShrink: 1, minWidth: 0 }}>
      {avatar ? <RingedAvatar src={avatar} size={AVATAR} ring={p.avatarRing} /> : null}
      <div style={{ display: "flex", flexDirection: "column", justifyContent: "center", gap: 6, minWidth: 0, flexShrink: 1 }}>
        {author ? (
          <div style={{ ...authorLine, fontWeight: 700, color: p.author, minWidth: 0, textAlign: dir.start, ...textDirectionStyle(author, authorLine) }}>
            {author}
          </div>
        ) : null}
        {metaLine}
      </div>
    </div>
  );
}

function render(fields: Record<string, string | undefined>, ctx: RenderContext): SatoriNode {
  const p = PALETTES[ctx.theme];
  const opt = (name: string) => (present(fields[name]) ? fields[name]!.trim() : undefined);
  const title = fields.title ?? "";
  const dir = directionOf(title);
  const subtitle = opt("subtitle");
  const category = opt("category");
  const author = opt("author_name");
  const date = opt("date");
  const readingTime = opt("reading_time");
  const logo = ctx.images.logo_url;
  const avatar = ctx.images.author_avatar_url;

  const meta = [date, readingTime && readingTimeLabel(readingTime)].filter((m): m is string => Boolean(m));
  const hasByline = Boolean(author || avatar || meta.length);
  const contentWidth = ctx.width - PAD_X * 2;

  // The byline's height is the avatar's when there is one, else its text lines.
  const bylineText = (author ? AUTHOR_SIZE * 1.25 : 0) + (meta.length ? (author ? META_SIZE : AUTHOR_SIZE) * 1.25 : 0) + (author && meta.length ? 6 : 0);
  const bylineHeight = hasByline ? BYLINE_GAP + Math.max(avatar ? AVATAR + 8 : 0, bylineText) : 0;

  const available = ctx.height - PAD_Y * 2 - TOP_ROW - bylineHeight - 28;
  // A sparse card gets a larger title; a crowded one may go down to 40px before clamping.
  const headline = fitHeadline(title, subtitle, {
    width: contentWidth,
    height: available,
    titleMax: hasByline || subtitle ? 84 : 104,
    titleMaxLines: MAX_TITLE_LINES,
    titleLineHeight: TITLE_LH,
    subtitleMax: 31,
    subtitleLineHeight: 1.35,
    gap: 22,
  });

  // A long category would crowd the logo: the pill gets what the logo leaves.
  const pillWidth = Math.min(PILL_MAX_W, contentWidth - (logo ? LOGO_W + 40 : 0));
  const pillFits = category ? 44 + textWidthEm(category.toUpperCase()) * (PILL_SIZE + 2) <= pillWidth : true;

  return (
    <Card width={ctx.width} height={ctx.height} padX={PAD_X} padY={PAD_Y} background={p.background} ink={p.title} glows={glowsFor(p.glows, dir)}>
      {p.stripe ? <div style={{ position: "absolute", top: 0, [dir.start]: 0, width: 12, height: ctx.height, backgroundColor: p.stripe }} /> : null}

      <div
        style={{
          ...ABOVE_GLOWS,
          display: "flex",
          flexDirection: dir.row,
          justifyContent: "space-between",
          alignItems: "center",
          height: TOP_ROW,
          flexShrink: 0,
          gap: 40,
        }}
      >
        {category ? (
          <div style={{ display: "flex", maxWidth: pillWidth, minWidth: 0, flexShrink: pillFits ? 0 : 1 }}>
            <CategoryPill text={category} p={p} />
          </div>
        ) : (
          // Without a category the card keeps the family's accent bar in its place.
          <div style={{ display: "flex", width: 64, height: 8, borderRadius: 4, backgroundImage: p.accentBar }} />
        )}
        {logo ? <img src={logo} width={LOGO_W} height={LOGO_H} style={{ objectFit: "contain", objectPosition: `${dir.end} center`, flexShrink: 0 }} /> : null}
      </div>

      <Headline title={title} subtitle={subtitle} layout={headline} weight={p.titleWeight} tracking={-0.022} titleColor={p.title} subtitleColor={p.subtitle} />

      {hasByline ? (
        <div style={{ ...ABOVE_GLOWS, display: "flex", flexDirection: dir.row, paddingTop: BYLINE_GAP, flexShrink: 0, minWidth: 0 }}>
          <Byline author={author} avatar={avatar} meta={meta} p={p} dir={dir} />
        </div>
      ) : null}
    </Card>
  );
}

const blog: TemplateDefinition = {
  id: "blog",
  description: "Blog post: title, standfirst, category, logo and an author byline with photo, date and reading time.",
  fields: [
    { name: "title", type: "text", required: true, maxLength: 200, description: "Post title." },
    { name: "subtitle", type: "text", description: "Standfirst under the title." },
    { name: "logo_url", type: "image_url", description: "Publication logo, drawn top right (top left on a right-to-left card)." },
    { name: "author_name", type: "text", description: "Author, shown in the byline." },
    { name: "author_avatar_url", type: "image_url", description: "Author photo, drawn round in the byline." },
    { name: "date", type: "text", description: 'Free-text publication date, e.g. "March 14, 2025".' },
    { name: "reading_time", type: "text", description: 'Reading time; a bare number n is shown as "n min read".' },
    { name: "category", type: "text", description: "Section or tag, shown as a pill above the title." },
  ],
  render,
};

export default blog;
