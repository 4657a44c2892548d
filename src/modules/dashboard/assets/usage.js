// The Usage page: plan, quota bar, reset date, images per day, rate limit.
import { call } from "./api.js";
import { state } from "./state.js";
import { capitalize, dateFormat, dayFormat, fmt, h, monthFormat, pill, s, setMain } from "./dom.js";

// ---------------------------------------------------------------------------------------------
// Usage

export async function renderUsage(current) {
  const [overview, batches] = await Promise.all([call("GET", "/usage"), call("GET", "/batches")]);
  if (!current()) return;
  const { usage, rate_limit: rate } = overview;
  const me = state.me;
  const percent = Math.min(100, usage.percent_used);
  const fill = h("span.meter-fill");
  fill.style.width = `${percent}%`;
  const meter = h(
    "div.meter",
    {
      role: "progressbar",
      "aria-label": "Quota used",
      "aria-valuemin": "0",
      "aria-valuemax": String(usage.quota),
      "aria-valuenow": String(usage.used),
      "aria-valuetext": `${fmt(usage.used)} of ${fmt(usage.quota)} images`,
    },
    fill,
  );
  meter.classList.add(`is-${overview.quota_state}`);

  const quotaPill = {
    available: ["ok", "Quota available"],
    warning: ["warn", "Quota above 80 %"],
    exhausted: ["bad", "Quota exhausted"],
  }[overview.quota_state];
  const subscriptionPill = me.blocked
    ? ["bad", me.account.status === "canceled" ? "Subscription canceled" : "Payment past due"]
    : ["ok", "Subscription active"];
  const reset = new Date(usage.reset_date);

  setMain(
    h("h1", null, "Usage"),
    h(
      "ul.glance",
      { "aria-label": "Status at a glance" },
      h("li", null, pill(...subscriptionPill)),
      h("li", null, pill(...quotaPill)),
      h("li", null, pill("info", `Rate limit ${fmt(rate.requests_per_second)} req/s`)),
    ),
    h(
      "div.grid",
      null,
      h(
        "section.card.quota",
        { "aria-labelledby": "quota-title" },
        h("h2#quota-title", null, "Quota this month"),
        h("p.big", null, h("span", { dataset: { testid: "usage-used" } }, fmt(usage.used)), h("span.muted", null, ` of ${fmt(usage.quota)} images`)),
        meter,
        h(
          "dl.facts",
          null,
          fact("Used", fmt(usage.used), "usage-used-value"),
          fact("Remaining", fmt(usage.remaining), "usage-remaining"),
          fact("Quota", fmt(usage.quota), "usage-quota"),
          fact("Percent used", `${usage.percent_used.toFixed(2)} %`, "usage-percent"),
          fact("Resets", h("time", { datetime: usage.reset_date, dataset: { testid: "usage-reset" } }, `${dateFormat.format(reset)}, 00:00 UTC`)),
        ),
      ),
      h(
        "section.card",
        { "aria-labelledby": "plan-title" },
        h("h2#plan-title", null, "Plan"),
        h("p.big", { dataset: { testid: "usage-plan" } }, capitalize(usage.plan)),
        h(
          "dl.facts",
          null,
          fact("Monthly images", fmt(usage.quota)),
          fact("Rate limit", `${fmt(rate.requests_per_second)} ${rate.requests_per_second === 1 ? "request" : "requests"} per second`, "usage-rate"),
          fact("Key", `${me.account.key_prefix || "—"}…`),
          fact("Account", me.account.id),
        ),
        h("p.hint", null, "The rate limit is a sliding one-second window shared by API calls and playground previews. Previews do not count toward the quota."),
      ),
    ),
    h(
      "section.card",
      { "aria-labelledby": "chart-title" },
      h("h2#chart-title", null, `Images per day, ${monthFormat.format(new Date(overview.month + "-01T00:00:00Z"))}`),
      chartBlock(overview),
    ),
    batchesBlock(batches.data, current),
  );
}

// ---------------------------------------------------------------------------------------------
// Batches: each with its progress, refreshed while any is still drawing.

const BATCH_STATUS = { queued: ["info", "Queued"], running: ["info", "Running"], done: ["ok", "Done"], canceled: ["warn", "Canceled"] };
const REFRESH_MS = 2000;

function batchesBlock(initial, current) {
  const list = h("ul.batch-list", { dataset: { testid: "batch-list" } });
  const empty = h("p.hint", { dataset: { testid: "batch-empty" } }, "No batches in the last 30 days. POST /api/batches draws up to 1,000 images in one call.");
  const show = (batches) => {
    list.replaceChildren(...batches.map(batchRow));
    empty.hidden = batches.length > 0;
    list.hidden = batches.length === 0;
  };
  show(initial);
  const refresh = async () => {
    if (!current() || !list.isConnected) return;
    try {
      const { data } = await call("GET", "/batches");
      if (!current() || !list.isConnected) return;
      show(data);
      if (data.some((b) => b.status === "queued" || b.status === "running")) setTimeout(refresh, REFRESH_MS);
    } catch {
      // The next visit to the page shows them again.
    }
  };
  if (initial.some((b) => b.status === "queued" || b.status === "running")) setTimeout(refresh, REFRESH_MS);
  return h("section.card", { "aria-labelledby": "batches-title" }, h("h2#batches-title", null, "Batches"), empty, list);
}

function batchRow(batch) {
  const settled = batch.done + batch.failed;
  const percent = batch.total > 0 ? Math.round((settled / batch.total) * 100) : 100;
  const fill = h("span.meter-fill");
  fill.style.width = `${percent}%`;
  const meter = h(
    "div.meter",
    {
      role: "progressbar",
      "aria-label": `Batch ${batch.id}`,
      "aria-valuemin": "0",
      "aria-valuemax": String(batch.total),
      "aria-valuenow": String(settled),
      "aria-valuetext": `${fmt(settled)} of ${fmt(batch.total)} images settled`,
    },
    fill,
  );
  meter.classList.add(batch.failed > 0 ? "is-warning" : "is-available");
  const [kind, label] = BATCH_STATUS[batch.status] || ["info", batch.status];
  return h(
    "li.batch",
    { dataset: { testid: "batch", batchId: batch.id, status: batch.status } },
    h(
      "div.batch-head",
      null,
      h("code", null, batch.id),
      pill(kind, label),
      h("time.muted", { datetime: batch.created_at }, dateFormat.format(new Date(batch.created_at))),
    ),
    meter,
    h("p.hint", { dataset: { testid: "batch-progress" } }, `${fmt(batch.done)} drawn, ${fmt(batch.failed)} failed, of ${fmt(batch.total)}`),
  );
}

function fact(term, value, testid) {
  return h("div", null, h("dt", null, term), h("dd", testid ? { dataset: { testid } } : null, value));
}

/** The daily chart as inline SVG, drawn for the container's width (so labels stay readable at 375 px). */
function chartBlock(overview) {
  const holder = h("div.chart");
  const total = overview.daily.reduce((sum, d) => sum + d.count, 0);
  const busiest = overview.daily.reduce((best, d) => (d.count > best.count ? d : best), { day: null, count: 0 });
  const summary =
    total === 0
      ? "No images generated yet this month."
      : `${fmt(total)} images this month; busiest day ${dayFormat.format(new Date(busiest.day + "T00:00:00Z"))} with ${fmt(busiest.count)}.`;
  const draw = () => {
    const width = Math.max(260, Math.floor(holder.clientWidth || 600));
    holder.replaceChildren(dailyChart(overview, width, summary));
  };
  requestAnimationFrame(draw);
  let timer;
  const onResize = () => {
    if (!holder.isConnected) return window.removeEventListener("resize", onResize);
    clearTimeout(timer);
    timer = setTimeout(draw, 100);
  };
  window.addEventListener("resize", onResize);
  return [holder, h("p.hint", null, summary)];
}

function niceMax(value) {
  if (value <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function dailyChart(overview, width, summary) {
  const height = 190;
  const pad = { top: 12, right: 8, bottom: 26, left: 36 };
  const days = overview.daily;
  const max = niceMax(Math.max(...days.map((d) => d.count), 0));
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const slot = plotW / days.length;
  const barW = Math.max(2, slot * 0.7);
  const y = (v) => pad.top + plotH - (v / max) * plotH;

  const svg = s("svg", {
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": `Images per day this month. ${summary}`,
    class: "chart-svg",
  });
  for (const tick of [0, max / 2, max]) {
    svg.append(
      s("line", { x1: pad.left, x2: width - pad.right, y1: y(tick), y2: y(tick), class: tick === 0 ? "axis" : "grid" }),
      s("text", { x: pad.left - 6, y: y(tick) + 4, "text-anchor": "end", class: "tick" }, fmt(tick)),
    );
  }
  days.forEach((d, i) => {
    const x = pad.left + i * slot + (slot - barW) / 2;
    const future = d.day > overview.today;
    const label = `${dayFormat.format(new Date(d.day + "T00:00:00Z"))}: ${fmt(d.count)} image${d.count === 1 ? "" : "s"}`;
    const barH = d.count > 0 ? Math.max(2, (d.count / max) * plotH) : 0;
    const cls = future ? "bar future" : d.day === overview.today ? "bar today" : "bar";
    const group = s("g", { class: cls }, s("title", null, label));
    group.append(s("rect", { x, y: pad.top + plotH - barH, width: barW, height: barH, rx: Math.min(2, barW / 3), class: "value" }));
    // A thin hit area so hovering an empty day still shows its tooltip.
    group.append(s("rect", { x: pad.left + i * slot, y: pad.top, width: slot, height: plotH, class: "hit" }));
    svg.append(group);
    const dayNumber = i + 1;
    const every = slot < 14 ? 5 : slot < 22 ? 2 : 1;
    if (dayNumber === 1 || dayNumber % every === 0 || dayNumber === days.length) {
      if (dayNumber === days.length - 1 && every > 1 && days.length % every !== 0) return;
      svg.append(
        s(
          "text",
          { x: pad.left + i * slot + slot / 2, y: height - 8, "text-anchor": "middle", class: d.day === overview.today ? "tick today" : "tick" },
          dayNumber,
        ),
      );
    }
  });
  return svg;
}
