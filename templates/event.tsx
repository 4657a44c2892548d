/** @jsxImportSource ogsmith */
/**
 * `event`: logo top right, title, subtitle, date, time, location and a speaker
 * block with a round avatar and a "Featuring <name>" line.
 *
 * Designed on a 1200×630 logical canvas (the engine scales the canvas to the requested size).
 * Dark is the bold look: near-black with violet/pink glows, heavy white type. Light is the
 * formal look: paper white, navy ink, a thin accent rule, lighter weights.
 * Every block is optional except the title; empty blocks take no space, and the title block
 * sits in the remaining space so a title-only card is as balanced as a full one.
 * A right-to-left title (Arabic, Hebrew) mirrors the card: accent bar on the right, logo on the
 * left, meta from the right with its icons on the right of their text, the speaker on the left;
 * each text keeps its own direction.
 */
import type { RenderContext, SatoriNode, TemplateDefinition, Theme } from "../src/templates/types.ts";
import { clampStyle, present, singleLineStyle, textDirectionStyle, textWidthEm } from "../src/templates/kit.ts";
import { ABOVE_GLOWS, Card, directionOf, fitHeadline, glowsFor, Headline, RingedAvatar, type Direction, type GlowSpec } from "../src/templates/parts.tsx";

interface Palette {
  background: string;
  /** Soft colour glows, each confined to a corner box (see `Glow`). */
  glows: GlowSpec[];
  title: string;
  subtitle: string;
  meta: string;
  icon: string;
  label: string;
  rule: string;
  accentBar: string;
  avatarRing: string;
  titleWeight: number;
}

const PALETTES: Record<Theme, Palette> = {
  dark: {
    background: "#0B0B14",
    glows: [
      { corner: "top-right", width: 820, height: 520, color: "rgba(139, 92, 246, 0.6)" },
      { corner: "bottom-left", width: 560, height: 340, color: "rgba(236, 72, 153, 0.34)" },
    ],
    title: "#FFFFFF",
    subtitle: "rgba(255, 255, 255, 0.72)",
    meta: "#E4E4F0",
    icon: "#C4B5FD",
    label: "#C4B5FD",
    rule: "rgba(255, 255, 255, 0.14)",
    accentBar: "linear-gradient(90deg, #8B5CF6 0%, #EC4899 100%)",
    avatarRing: "linear-gradient(135deg, #8B5CF6 0%, #EC4899 100%)",
    titleWeight: 800,
  },
  light: {
    background: "#FCFCFA",
    glows: [],
    title: "#0F1B33",
    subtitle: "#4A5568",
    meta: "#243047",
    icon: "#1F4FBF",
    label: "#1F4FBF",
    rule: "#DDE2EA",
    accentBar: "linear-gradient(90deg, #1F4FBF 0%, #1F4FBF 100%)",
    avatarRing: "linear-gradient(135deg, #1F4FBF 0%, #1F4FBF 100%)",
    titleWeight: 700,
  },
};

const PAD_X = 72;
const PAD_Y = 60;
const AVATAR = 84;
const LOGO_W = 300;
const LOGO_H = 72;
const TOP_ROW = 72;
const SPEAKER_W = 420;
const META_SIZE = 27;
const META_GAP = 36;
const TITLE_LH = 1.08;
const MAX_TITLE_LINES = 5;

type IconName = "calendar" | "clock" | "pin";

/** Small line icons drawn as SVG so they scale with the card and need no font. */
function Icon({ name, color, size }: { name: IconName; color: string; size: number }): SatoriNode {
  const stroke = { fill: "none", stroke: color, "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round" };
  const shapes: Record<IconName, SatoriNode> = {
    calendar: (
      <g {...stroke}>
        <rect x="3" y="4.5" width="18" height="16.5" rx="2.5" />
        <path d="M3 9.5h18M8 2.5v4M16 2.5v4" />
      </g>
    ),
    clock: (
      <g {...stroke}>
        <circle cx="12" cy="12" r="9" />
        <path d="M12 7v5l3.5 2" />
      </g>
    ),
    pin: (
      <g {...stroke}>
        <path d="M12 21.5s-7-6.2-7-11.5a7 7 0 0 1 14 0c0 5.3-7 11.5-7 11.5z" />
        <circle cx="12" cy="10" r="2.5" />
      </g>
    ),
  };
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" style={{ flexShrink: 0 }}>
      {shapes[name]}
    </svg>
  );
}

function MetaItem({ icon, text, p, maxWidth, dir }: { icon: IconName; text: string; p: Palette; maxWidth: number; dir: Direction }): SatoriNode {
  const line = singleLineStyle(META_SIZE);
  return (
    <div style={{ display: "flex", flexDirection: dir.row, alignItems: "center", gap: 12, maxWidth, minWidth: 0 }}>
      <Icon name={icon} color={p.icon} size={28} />
      <div style={{ ...line, color: p.meta, fontWeight: 600, minWidth: 0, ...textDirectionStyle(text, line) }}>{text}</div>
    </div>
  );
}

function Speaker({ name, avatar, p, dir }: { name: string | undefined; avatar: string | undefined; p: Palette; dir: Direction }): SatoriNode {
  const nameBlock = clampStyle(2, 29, 1.15);
  return (
    <div style={{ display: "flex", flexDirection: dir.row, alignItems: "center", gap: 20, flexShrink: 0, maxWidth: SPEAKER_W }}>
      {avatar ? <RingedAvatar src={avatar} size={AVATAR} ring={p.avatarRing} /> : null}
      {name ? (
        <div style={{ display: "flex", flexDirection: "column", minWidth: 0, gap: 4 }}>
          <div style={{ fontSize: 17, fontWeight: 700, letterSpacing: 2.5, color: p.label, textAlign: dir.start }}>FEATURING</div>
          <div style={{ ...nameBlock, color: p.title, fontWeight: 700, textAlign: dir.start, ...textDirectionStyle(name, nameBlock) }}>{name}</div>
        </div>
      ) : null}
    </div>
  );
}

function render(fields: Record<string, string | undefined>, ctx: RenderContext): SatoriNode {
  const p = PALETTES[ctx.theme];
  const title = fields.title ?? "";
  const dir = directionOf(title);
  const subtitle = present(fields.subtitle) ? fields.subtitle : undefined;
  const date = present(fields.date) ? fields.date : undefined;
  const time = present(fields.time) ? fields.time : undefined;
  const location = present(fields.location) ? fields.location : undefined;
  const speakerName = present(fields.speaker_name) ? fields.speaker_name : undefined;
  const logo = ctx.images.logo_url;
  const avatar = ctx.images.speaker_avatar_url;

  const hasMeta = Boolean(date || time || location);
  const hasSpeaker = Boolean(speakerName || avatar);
  const hasFooter = hasMeta || hasSpeaker;
  const contentWidth = ctx.width - PAD_X * 2;

  // Date and time share a row when both fit whole; otherwise each gets its own row.
  // The speaker block takes what its name needs (up to SPEAKER_W); the meta column gets the rest.
  const speakerWidth = !hasSpeaker ? 0 : Math.min(SPEAKER_W, (avatar ? AVATAR + 8 + 20 : 0) + (speakerName ? Math.max(150, textWidthEm(speakerName) * 29) : 0));
  const metaMaxWidth = hasSpeaker ? contentWidth - speakerWidth - 40 : contentWidth;
  const itemWidth = (text: string) => 40 + textWidthEm(text) * META_SIZE;
  const dateTimeOneRow = !date || !time || itemWidth(date) + itemWidth(time) + META_GAP <= metaMaxWidth;
  const metaRows: { icon: IconName; text: string }[][] = [];
  if (dateTimeOneRow) {
    const row = [date && { icon: "calendar" as const, text: date }, time && { icon: "clock" as const, text: time }].filter(Boolean);
    if (row.length) metaRows.push(row as { icon: IconName; text: string }[]);
  } else {
    metaRows.push([{ icon: "calendar", text: date! }], [{ icon: "clock", text: time! }]);
  }
  if (location) metaRows.push([{ icon: "pin", text: location }]);
  // Rule + padding, then whichever is taller: the meta rows or the avatar.
  const metaHeight = metaRows.length * Math.ceil(META_SIZE * 1.25) + Math.max(0, metaRows.length - 1) * 14;
  const footerHeight = hasFooter ? 30 + Math.max(metaHeight, hasSpeaker ? AVATAR + 8 : 0) : 0;

  // Vertical room for title + subtitle: the canvas minus padding, the logo row and the footer.
  const available = ctx.height - PAD_Y * 2 - TOP_ROW - footerHeight - 24;
  // A sparse card gets a larger title; a crowded one may go down to 40px before clamping.
  const headline = fitHeadline(title, subtitle, {
    width: contentWidth,
    height: available,
    titleMax: hasFooter || subtitle ? 88 : 112,
    titleMaxLines: MAX_TITLE_LINES,
    titleLineHeight: TITLE_LH,
    subtitleMax: 32,
    subtitleLineHeight: 1.3,
    gap: 20,
  });

  return (
    <Card width={ctx.width} height={ctx.height} padX={PAD_X} padY={PAD_Y} background={p.background} ink={p.title} glows={glowsFor(p.glows, dir)}>
      {ctx.theme === "light" ? (
        // The formal look: a thin accent rule along the top edge.
        <div style={{ position: "absolute", top: 0, left: 0, width: ctx.width, height: 8, backgroundColor: p.icon }} />
      ) : null}

      <div
        style={{
          ...ABOVE_GLOWS,
          display: "flex",
          flexDirection: dir.row,
          justifyContent: "space-between",
          alignItems: "flex-start",
          height: TOP_ROW,
          flexShrink: 0,
        }}
      >
        <div style={{ display: "flex", width: 64, height: 8, borderRadius: 4, backgroundImage: p.accentBar, marginTop: 8 }} />
        {logo ? (
          // A fixed box; `contain` keeps any aspect ratio inside it, pinned to the top corner at the reading end.
          <img src={logo} width={LOGO_W} height={LOGO_H} style={{ objectFit: "contain", objectPosition: `${dir.end} top` }} />
        ) : null}
      </div>

      <Headline title={title} subtitle={subtitle} layout={headline} weight={p.titleWeight} tracking={-0.025} titleColor={p.title} subtitleColor={p.subtitle} />

      {hasFooter ? (
        <div
          style={{
            ...ABOVE_GLOWS,
            display: "flex",
            flexDirection: dir.row,
            alignItems: "center",
            // Meta at the reading start, speaker at the end; a speaker alone sits at the start.
            justifyContent: hasMeta ? "space-between" : "flex-start",
            borderTop: `2px solid ${p.rule}`,
            paddingTop: 28,
            gap: 40,
            flexShrink: 0,
          }}
        >
          {hasMeta ? (
            <div style={{ display: "flex", flexDirection: "column", gap: 14, minWidth: 0, maxWidth: metaMaxWidth, flexShrink: 1 }}>
              {metaRows.map((row) => (
                <div style={{ display: "flex", flexDirection: dir.row, gap: META_GAP, minWidth: 0 }}>
                  {row.map((item) => (
                    <MetaItem icon={item.icon} text={item.text} p={p} maxWidth={metaMaxWidth} dir={dir} />
                  ))}
                </div>
              ))}
            </div>
          ) : null}
          {hasSpeaker ? <Speaker name={speakerName} avatar={avatar} p={p} dir={dir} /> : null}
        </div>
      ) : null}
    </Card>
  );
}

const event: TemplateDefinition = {
  id: "event",
  description: "Event announcement: title, subtitle, date, time, location, logo and a featured speaker.",
  fields: [
    { name: "title", type: "text", required: true, maxLength: 200, description: "Event name." },
    { name: "subtitle", type: "text", description: "Secondary line under the title." },
    { name: "logo_url", type: "image_url", description: "Logo, drawn top right (top left on a right-to-left card)." },
    { name: "date", type: "text", description: 'Free-text date, e.g. "Thursday, March 14".' },
    { name: "time", type: "text", description: 'Free-text time with a timezone, e.g. "18:00 CET".' },
    { name: "location", type: "text", description: "Venue, city, or a virtual-event label." },
    { name: "speaker_name", type: "text", description: 'Featured speaker, shown as "Featuring <name>".' },
    { name: "speaker_avatar_url", type: "image_url", description: "Speaker photo, drawn round." },
  ],
  render,
};

export default event;
