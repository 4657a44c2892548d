/**
 * The alert emails: a clear subject, a plain-text and an HTML part, the
 * numbers, and a link to the dashboard. Pure functions of the alert's stored facts, so a retry
 * sends the same message. Nothing secret goes in: no API key, no webhook secret, and a webhook
 * URL is shown without credentials or query string (either may carry a token).
 */
import type { EmailAlertKind } from "../store/types.ts";

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

export interface EmailMessage extends EmailContent {
  to: string;
}

/** The numbers of a usage alert, as they were when the threshold was crossed. */
export interface UsageFacts {
  used: number;
  quota: number;
  /** The threshold crossed: 80, 95 or 100. */
  percentage: number;
  plan: string;
  /** ISO 8601: the next 1st of a month, 00:00 UTC. */
  resets_at: string;
}

export interface WebhookDisabledFacts {
  webhook_id: string;
  /** Already redacted with `displayUrl`. */
  url: string;
  reason: string;
}

export type AlertFacts = UsageFacts | WebhookDisabledFacts;

const PRODUCT = "ogsmith";

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A webhook URL as it may appear in an email: no user/password, no query, no fragment. */
export function displayUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const hidden = url.search !== "" || url.hash !== "";
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return url.toString() + (hidden ? "?…" : "");
  } catch {
    return "(invalid URL)";
  }
}

const planName = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);

/** "1 March 2026, 00:00 UTC" */
function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const month = d.toLocaleString("en-US", { month: "long", timeZone: "UTC" });
  const hh = String(d.getUTCHours()).padStart(2, "0");
  const mm = String(d.getUTCMinutes()).padStart(2, "0");
  return `${d.getUTCDate()} ${month} ${d.getUTCFullYear()}, ${hh}:${mm} UTC`;
}

const percentOf = (used: number, quota: number) => (quota > 0 ? Math.floor((used * 100) / quota) : 100);

export function buildAlertEmail(kind: EmailAlertKind, facts: AlertFacts, dashboardUrl: string): EmailContent {
  switch (kind) {
    case "usage_warning":
    case "usage_critical":
    case "quota_exceeded":
      return usageEmail(kind, facts as UsageFacts, dashboardUrl);
    case "webhook_disabled":
      return webhookDisabledEmail(facts as WebhookDisabledFacts, dashboardUrl);
  }
}

function usageEmail(kind: "usage_warning" | "usage_critical" | "quota_exceeded", f: UsageFacts, dashboardUrl: string): EmailContent {
  const resets = formatDate(f.resets_at);
  const remaining = Math.max(0, f.quota - f.used);
  const numbers = `${f.used} of ${f.quota} images`;
  const subject = {
    usage_warning: `${PRODUCT}: you have used ${f.percentage}% of your monthly quota (${numbers})`,
    usage_critical: `${PRODUCT}: critical — ${f.percentage}% of your monthly quota used (${numbers})`,
    quota_exceeded: `${PRODUCT}: monthly quota exceeded (${numbers})`,
  }[kind];
  const lead = {
    usage_warning: `Your account has used ${percentOf(f.used, f.quota)}% of this month's image quota.`,
    usage_critical: `Your account has used ${percentOf(f.used, f.quota)}% of this month's image quota and is close to the limit. When it is reached, image generation answers 429 QUOTA_EXCEEDED until the quota resets.`,
    quota_exceeded: `Your account has used its whole image quota for this month. Image generation answers 429 QUOTA_EXCEEDED until the quota resets.`,
  }[kind];
  const advice =
    kind === "quota_exceeded"
      ? "To keep generating images before the reset, move to a larger plan."
      : "If you expect to need more images this month, consider a larger plan.";
  const rows: [string, string][] = [
    ["Used this month", String(f.used)],
    ["Monthly quota", String(f.quota)],
    ["Remaining", String(remaining)],
    ["Plan", planName(f.plan)],
    ["Quota resets", resets],
  ];
  const text = [
    lead,
    "",
    ...rows.map(([k, v]) => `${(k + ":").padEnd(17)} ${v}`),
    "",
    advice,
    `Usage and plan details: ${dashboardUrl}`,
    "",
    `— ${PRODUCT}`,
    "You receive this alert once per threshold per month.",
  ].join("\n");
  const html = layout(
    subject,
    `<p>${escapeHtml(lead)}</p>
${table(rows)}
<p>${escapeHtml(advice)}</p>
${button(dashboardUrl, "Open the dashboard")}
<p style="color:#666;font-size:12px">You receive this alert once per threshold per month.</p>`,
  );
  return { subject, text, html };
}

function webhookDisabledEmail(f: WebhookDisabledFacts, dashboardUrl: string): EmailContent {
  // Named by id, never by URL: the subject is logged and kept in the email log, and a URL's path
  // can be a credential (Slack-style incoming webhooks).
  const subject = `${PRODUCT}: webhook ${f.webhook_id} disabled after repeated delivery failures`;
  const reenable = `PUT /api/webhooks/${f.webhook_id} with the webhook's "url", "events" and "enabled": true`;
  const text = [
    "One of your webhook endpoints kept failing, so ogsmith disabled it and dropped its queued deliveries.",
    "",
    `Endpoint:   ${f.url}`,
    `Webhook id: ${f.webhook_id}`,
    `Why:        ${f.reason}`,
    "",
    "To re-enable it, fix the endpoint, then either:",
    `  - send ${reenable}, or`,
    `  - open the dashboard's webhooks page and re-enable it: ${dashboardUrl}`,
    "Events that happen while it is disabled are not delivered to it.",
    "",
    `— ${PRODUCT}`,
  ].join("\n");
  const html = layout(
    subject,
    `<p>One of your webhook endpoints kept failing, so ogsmith disabled it and dropped its queued deliveries.</p>
${table([
  ["Endpoint", f.url],
  ["Webhook id", f.webhook_id],
  ["Why", f.reason],
])}
<p>To re-enable it, fix the endpoint, then either send <code>${escapeHtml(reenable)}</code>, or re-enable it on the dashboard's webhooks page.</p>
${button(dashboardUrl, "Open the dashboard")}
<p style="color:#666;font-size:12px">Events that happen while it is disabled are not delivered to it.</p>`,
  );
  return { subject, text, html };
}

function table(rows: [string, string][]): string {
  const cells = rows
    .map(
      ([k, v]) =>
        `<tr><th align="left" style="padding:4px 16px 4px 0;font-weight:600">${escapeHtml(k)}</th><td style="padding:4px 0">${escapeHtml(v)}</td></tr>`,
    )
    .join("\n");
  return `<table cellspacing="0" cellpadding="0" style="border-collapse:collapse;margin:16px 0">\n${cells}\n</table>`;
}

function button(href: string, label: string): string {
  return `<p><a href="${escapeHtml(href)}" style="display:inline-block;background:#111;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escapeHtml(label)}</a></p>
<p style="color:#666;font-size:12px">${escapeHtml(href)}</p>`;
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#111;line-height:1.5;max-width:560px;margin:0 auto;padding:24px">
${body}
<p style="color:#666;font-size:12px">— ${PRODUCT}</p>
</body></html>`;
}
