/**
 * The complete examples of docs/templates.md, as definitions. The docs test checks that the
 * document shows exactly these, and the language tests that each is accepted and draws.
 */

/** A GitHub-style repository card: avatar, owner/name, description, language dot and stats with SVG icons. */
export const REPO_CARD = {
  id: "repo-card",
  name: "Repository card",
  fields: [
    { name: "owner", type: "text", required: true, max_length: 39 },
    { name: "repo", type: "text", required: true, max_length: 100 },
    { name: "description", type: "text", max_length: 200 },
    { name: "language", type: "text", max_length: 30 },
    { name: "language_color", type: "color" },
    { name: "stars", type: "text", max_length: 10 },
    { name: "forks", type: "text", max_length: 10 },
    { name: "avatar", type: "image_url" },
  ],
  themes: {
    light: { bg: "#ffffff", ink: "#1f2328", muted: "#59636e", line: "#d1d9e0" },
    dark: { bg: "#0d1117", ink: "#f0f6fc", muted: "#9198a1", line: "#3d444d" },
  },
  sample: {
    owner: "ogsmith",
    repo: "ogsmith",
    description: "Open Graph images for every page, self-hosted.",
    language: "TypeScript",
    language_color: "#3178c6",
    stars: "1.2k",
    forks: "87",
  },
  html: `<div style="display: flex; flex-direction: column; width: 100%; height: 100%; background-color: var(--bg); color: var(--ink); font-family: Inter; padding: 72px 80px 0 80px">
  <div style="display: flex; justify-content: space-between; align-items: flex-start">
    <div style="display: flex; flex-direction: column; max-width: 820px">
      <div style="display: flex; font-size: 56px; line-height: 1.2">
        <span style="color: var(--muted)">{{owner}}/</span><span style="font-weight: 700">{{repo}}</span>
      </div>
      {{#description}}
      <p style="font-size: 32px; color: var(--muted); margin-top: 24px; line-height: 1.4" data-fit-lines="3" data-min-font-size="24">{{description}}</p>
      {{/description}}
    </div>
    {{#avatar}}<img src="{{avatar}}" width="160" height="160" style="border-radius: 24px; border: 2px solid var(--line)">{{/avatar}}
  </div>
  <div style="display: flex; gap: 48px; margin-top: auto; margin-bottom: 56px; font-size: 28px; color: var(--muted); align-items: center">
    {{#language}}
    <div style="display: flex; align-items: center; gap: 12px">
      <div style="width: 24px; height: 24px; border-radius: 50%; background-color: {{language_color}}"></div>
      <span>{{language}}</span>
    </div>
    {{/language}}
    {{#stars}}
    <div style="display: flex; align-items: center; gap: 12px">
      <svg width="28" height="28" viewBox="0 0 16 16"><path fill="#9198a1" d="M8 .25a.75.75 0 0 1 .673.418l1.882 3.815 4.21.612a.75.75 0 0 1 .416 1.279l-3.046 2.97.719 4.192a.751.751 0 0 1-1.088.791L8 12.347l-3.766 1.98a.75.75 0 0 1-1.088-.79l.72-4.194L.818 6.374a.75.75 0 0 1 .416-1.28l4.21-.611L7.327.668A.75.75 0 0 1 8 .25Z"/></svg>
      <span>{{stars}}</span>
    </div>
    {{/stars}}
    {{#forks}}
    <div style="display: flex; align-items: center; gap: 12px">
      <svg width="28" height="28" viewBox="0 0 16 16"><path fill="#9198a1" d="M5 5.372v.878c0 .414.336.75.75.75h4.5a.75.75 0 0 0 .75-.75v-.878a2.25 2.25 0 1 1 1.5 0v.878a2.25 2.25 0 0 1-2.25 2.25h-1.5v2.128a2.251 2.251 0 1 1-1.5 0V8.5h-1.5A2.25 2.25 0 0 1 3.5 6.25v-.878a2.25 2.25 0 1 1 1.5 0ZM5 3.25a.75.75 0 1 0-1.5 0 .75.75 0 0 0 1.5 0Zm6.75.75a.75.75 0 1 0 0-1.5.75.75 0 0 0 0 1.5Zm-3 8.75a.75.75 0 1 0-1.5 0 .75.75 0 0 0 1.5 0Z"/></svg>
      <span>{{forks}}</span>
    </div>
    {{/forks}}
  </div>
  <div style="display: flex; height: 16px; margin: 0 -80px; background-color: {{language_color}}"></div>
</div>`,
};

/** A dotted background with an inline SVG logo. */
export const DOTTED_LOGO = {
  id: "dotted",
  name: "Dotted background with a logo",
  fields: [
    { name: "title", type: "text", required: true },
    { name: "site", type: "text" },
  ],
  themes: {
    dark: { bg: "#0b1020", dot: "rgba(255, 255, 255, 0.22)", ink: "#ffffff" },
    light: { bg: "#f8fafc", dot: "rgba(15, 23, 42, 0.14)", ink: "#0f172a" },
  },
  sample: { title: "Dotted backgrounds are one gradient and a tile size", site: "ogsmith.dev" },
  html: `<div style="display: flex; flex-direction: column; justify-content: space-between; width: 100%; height: 100%; padding: 80px; background-color: var(--bg); background-image: radial-gradient(circle, var(--dot) 9%, transparent 11%); background-size: 32px 32px; color: var(--ink)">
  <div style="display: flex; align-items: center; gap: 20px">
    <svg width="72" height="72" viewBox="0 0 72 72">
      <defs>
        <linearGradient id="mark" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stop-color="#22d3ee"/>
          <stop offset="1" stop-color="#6366f1"/>
        </linearGradient>
      </defs>
      <rect width="72" height="72" rx="18" fill="url(#mark)"/>
      <circle cx="36" cy="36" r="14" fill="none" stroke="#ffffff" stroke-width="6"/>
    </svg>
    {{#site}}<span style="font-size: 32px; font-weight: 600">{{site}}</span>{{/site}}
  </div>
  <h1 style="font-size: 76px; font-weight: 800; line-height: 1.1; letter-spacing: -2px; margin: 0" data-fit-lines="3" data-min-font-size="44">{{title}}</h1>
</div>`,
};

/** A gradient hero: layered gradients, a glow, a rotated badge, shadows and uppercase tracking. */
export const GRADIENT_HERO = {
  id: "hero",
  name: "Gradient hero",
  fields: [
    { name: "eyebrow", type: "text", max_length: 40 },
    { name: "title", type: "text", required: true },
    { name: "badge", type: "text", max_length: 12 },
    { name: "accent", type: "color" },
  ],
  sample: { eyebrow: "Launch week", title: "Ship cards that look designed", badge: "NEW", accent: "#f472b6" },
  html: `<div style="display: flex; position: relative; width: 100%; height: 100%; background-image: linear-gradient(135deg, #1e1b4b 0%, #4c1d95 55%, #9d174d 100%); color: white; font-family: Inter">
  <div style="position: absolute; top: -160px; right: -120px; width: 640px; height: 640px; border-radius: 50%; background-image: radial-gradient(circle, rgba(244, 114, 182, 0.55) 0%, rgba(244, 114, 182, 0) 70%)"></div>
  <div style="display: flex; flex-direction: column; justify-content: center; padding: 0 96px; width: 100%">
    {{#eyebrow}}<span style="font-size: 26px; font-weight: 700; text-transform: uppercase; letter-spacing: 6px; opacity: 0.8">{{eyebrow}}</span>{{/eyebrow}}
    <h1 style="font-size: 88px; font-weight: 800; line-height: 1.05; margin: 24px 0 0 0; text-shadow: 0 4px 24px rgba(0, 0, 0, 0.35)" data-fit-lines="2" data-min-font-size="56">{{title}}</h1>
  </div>
  {{#badge}}
  <div style="position: absolute; top: 64px; right: 80px; display: flex; padding: 12px 28px; border-radius: 999px; background-color: {{accent}}; box-shadow: 0 12px 32px rgba(0, 0, 0, 0.35), 0 0 0 4px rgba(255, 255, 255, 0.25); transform: rotate(-8deg); font-size: 30px; font-weight: 800; letter-spacing: 2px">{{badge}}</div>
  {{/badge}}
</div>`,
};

/** The same kind of card written with Tailwind classes only. */
export const TAILWIND_CARD = {
  id: "tailwind",
  name: "Tailwind card",
  fields: [
    { name: "title", type: "text", required: true },
    { name: "author", type: "text" },
    { name: "date", type: "text" },
  ],
  sample: { title: "Tailwind classes work as the renderer supports them", author: "Grace Hopper", date: "May 2, 2026" },
  html: `<div class="flex flex-col justify-between w-full h-full bg-slate-900 p-20">
  <div class="flex items-center">
    <div class="w-4 h-12 rounded-full bg-emerald-400 mr-4"></div>
    <span class="text-3xl font-semibold text-emerald-300 uppercase">Engineering blog</span>
  </div>
  <h1 class="text-7xl font-extrabold text-white" data-fit-lines="3" data-min-font-size="48">{{title}}</h1>
  <div class="flex items-center text-3xl text-slate-400">
    {{#author}}<span class="font-bold text-slate-200">{{author}}</span>{{/author}}
    {{#date}}<span class="ml-6">{{date}}</span>{{/date}}
  </div>
</div>`,
};

export const EXAMPLES = { REPO_CARD, DOTTED_LOGO, GRADIENT_HERO, TAILWIND_CARD };
