// The ogsmith dashboard: a small single-page app with no dependencies, served from the binary.
// It talks only to /dashboard/api/* with the HttpOnly session cookie; the API key typed at sign-in
// is sent once and never kept (no storage, the field is cleared). DOM is built with textContent,
// never innerHTML, so webhook URLs and server messages cannot inject markup.
"use strict";

(() => {
  const EVENTS = ["image.generated", "usage.warning", "usage.limit_reached", "usage.reset"];
  const MAX_WEBHOOKS = 20;
  const PREVIEW_DEBOUNCE_MS = 350;

  const state = {
    me: null,
    templates: null,
    /** Playground values per template id, kept while switching templates. */
    playground: { template: null, theme: "dark", values: {} },
    /** Webhook being edited (its record) or null for "add". */
    editing: null,
  };

  // ---------------------------------------------------------------------------------------------
  // DOM helpers

  /** h("tag.class#id", {attr: value, onclick: fn}, ...children) */
  function h(spec, attrs, ...children) {
    const [, tag, rest] = /^([a-z0-9]+)(.*)$/i.exec(spec);
    const el = document.createElement(tag);
    for (const part of rest.match(/[.#][^.#]+/g) || []) {
      if (part[0] === ".") el.classList.add(part.slice(1));
      else el.id = part.slice(1);
    }
    setAttrs(el, attrs);
    append(el, children);
    return el;
  }

  const SVG_NS = "http://www.w3.org/2000/svg";
  function s(tag, attrs, ...children) {
    const el = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) el.setAttribute(name, String(value));
    append(el, children);
    return el;
  }

  function setAttrs(el, attrs) {
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
      else if (name === "dataset") Object.assign(el.dataset, value);
      else if (name in el && typeof value !== "string") el[name] = value;
      else el.setAttribute(name, value === true ? "" : String(value));
    }
  }

  function append(el, children) {
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }

  const $ = (selector, root = document) => root.querySelector(selector);
  const main = () => $("#main");

  function setMain(...children) {
    const el = main();
    el.replaceChildren(...children.flat());
  }

  /** Moves focus to the page heading after a navigation, so keyboard and screen-reader users land there. */
  function focusHeading() {
    const heading = $("#main h1");
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus({ preventScroll: true });
    }
  }

  const numberFormat = new Intl.NumberFormat("en-US");
  const fmt = (n) => numberFormat.format(n);
  const dateFormat = new Intl.DateTimeFormat("en-GB", { weekday: "short", day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
  const dateTimeFormat = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone: "UTC", hour12: false });
  const monthFormat = new Intl.DateTimeFormat("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });
  const dayFormat = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });

  // ---------------------------------------------------------------------------------------------
  // API

  class ApiFailure extends Error {
    constructor(status, body, headers) {
      super((body && body.message) || `Request failed with status ${status}`);
      this.status = status;
      this.code = (body && body.code) || "HTTP_" + status;
      this.details = (body && body.details) || [];
      this.retryAfter = Number(headers.get("retry-after")) || 0;
    }
  }

  async function call(method, path, body, { raw = false, signal } = {}) {
    const init = { method, credentials: "same-origin", headers: { accept: raw ? "image/png" : "application/json" }, signal };
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch("/dashboard/api" + path, init);
    } catch (error) {
      if (error && error.name === "AbortError") throw error;
      throw new ApiFailure(0, { message: "The server could not be reached. Check your connection and try again.", code: "NETWORK_ERROR" }, new Headers());
    }
    if (!res.ok) {
      let payload = null;
      try {
        payload = await res.json();
      } catch {
        payload = null;
      }
      const failure = new ApiFailure(res.status, payload, res.headers);
      if (res.status === 401 && path !== "/session") sessionEnded();
      throw failure;
    }
    if (raw) return res;
    return res.status === 204 ? null : res.json();
  }

  // ---------------------------------------------------------------------------------------------
  // Field errors: details[].field from the API appear next to the field they name.

  /**
   * Shows each problem next to its field: `fieldFor(name)` maps an API field name (`url`,
   * `events.1`, …) to a form key; problems without a field in this form go to `formError`.
   */
  function showProblems(form, failure, fieldFor) {
    clearProblems(form);
    const leftovers = [];
    for (const detail of failure.details || []) {
      const key = fieldFor(detail.field);
      const slot = key && form.querySelector(`[data-error-for="${key}"]`);
      if (!slot) {
        leftovers.push(`${detail.field} ${detail.message}`);
        continue;
      }
      slot.textContent = slot.textContent ? `${slot.textContent}; ${detail.message}` : capitalize(detail.message);
      slot.hidden = false;
      const control = form.querySelector(`[data-field="${key}"]`);
      if (control) control.setAttribute("aria-invalid", "true");
    }
    const formError = form.querySelector("[data-error-for=_form]");
    if (formError && (leftovers.length > 0 || (failure.details || []).length === 0)) {
      formError.textContent = leftovers.length > 0 ? `${failure.message} (${leftovers.join("; ")})` : failure.message;
      formError.hidden = false;
    }
    const firstInvalid = form.querySelector("[aria-invalid=true]");
    if (firstInvalid && typeof firstInvalid.focus === "function") firstInvalid.focus();
  }

  function clearProblems(form) {
    for (const slot of form.querySelectorAll("[data-error-for]")) {
      slot.textContent = "";
      slot.hidden = true;
    }
    for (const control of form.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
  }

  const capitalize = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  /** A labelled control with its hint and error slot; `control` carries id and data-field. */
  function field(labelText, control, { hint, key } = {}) {
    const id = control.id;
    const errorId = `${id}-error`;
    const hintId = hint ? `${id}-hint` : undefined;
    control.setAttribute("aria-describedby", [hintId, errorId].filter(Boolean).join(" "));
    if (key) control.dataset.field = key;
    return h(
      "div.field",
      null,
      h("label", { for: id }, labelText),
      control,
      hint ? h("p.hint", { id: hintId }, hint) : null,
      h("p.field-error", { id: errorId, hidden: true, dataset: { errorFor: key || id } }),
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Session

  function signedInChrome(me) {
    $("#nav").hidden = !me;
    $("#account").hidden = !me;
    $("#account-label").textContent = me ? `${me.account.email} · ${me.account.key_prefix || ""}…` : "";
    const banner = $("#banner");
    if (me && me.blocked) {
      banner.replaceChildren(
        h("strong", null, me.account.status === "canceled" ? "Subscription canceled. " : "Payment past due. "),
        `${me.blocked.message} API requests, previews and webhook changes are refused with ${me.blocked.code} until this is resolved. Your usage and settings stay visible here.`,
      );
      banner.hidden = false;
    } else {
      banner.replaceChildren();
      banner.hidden = true;
    }
  }

  function sessionEnded() {
    if (!state.me) return;
    routeToken++;
    state.me = null;
    state.templates = null;
    signedInChrome(null);
    renderSignIn("Your session ended. Sign in again to continue.");
  }

  function renderSignIn(notice) {
    signedInChrome(null);
    const input = h("input#api-key", { type: "password", name: "api_key", autocomplete: "off", spellcheck: "false", required: true, placeholder: "og_…" });
    const button = h("button.button.primary", { type: "submit" }, "Sign in");
    const form = h(
      "form.stack",
      { novalidate: true },
      field("API key", input, { key: "api_key", hint: "Exchanged for a session cookie; the key itself is never stored in this browser." }),
      h("p.form-error", { role: "alert", hidden: true, dataset: { errorFor: "_form" } }),
      h("div.actions", null, button),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const apiKey = input.value;
      // The key leaves the page once, in this request; nothing keeps it afterwards.
      input.value = "";
      button.disabled = true;
      try {
        state.me = await call("POST", "/session", { api_key: apiKey });
        signedInChrome(state.me);
        if (!location.hash || location.hash === "#/" || location.hash === "#/sign-in") location.hash = "#/usage";
        else route();
      } catch (failure) {
        showProblems(form, failure, (name) => (name === "api_key" ? "api_key" : null));
        input.focus();
      } finally {
        button.disabled = false;
      }
    });
    setMain(
      h(
        "section.card.signin",
        { "aria-labelledby": "signin-title" },
        h("h1#signin-title", null, "Sign in"),
        h("p.muted", null, "Sign in with your ogsmith API key to see usage, manage webhooks and try templates."),
        notice ? h("p.notice", { role: "status" }, notice) : null,
        form,
      ),
    );
    input.focus();
  }

  async function signOut() {
    try {
      await call("DELETE", "/session");
    } catch {
      // Already gone server-side: the result is the same.
    }
    routeToken++;
    state.me = null;
    state.templates = null;
    state.editing = null;
    signedInChrome(null);
    history.replaceState(null, "", "#/sign-in");
    renderSignIn("You are signed out.");
  }

  // ---------------------------------------------------------------------------------------------
  // Router

  const ROUTES = { usage: renderUsage, webhooks: renderWebhooks, playground: renderPlayground, "signing-keys": renderSigningKeys };
  let routeToken = 0;

  async function route() {
    const token = ++routeToken;
    if (!state.me) {
      try {
        state.me = await call("GET", "/me");
      } catch (failure) {
        if (token !== routeToken) return;
        if (failure.status === 401) return renderSignIn();
        return renderFatal(failure);
      }
    }
    if (token !== routeToken) return;
    signedInChrome(state.me);
    const name = (location.hash.replace(/^#\/?/, "") || "usage").split("/")[0];
    const view = ROUTES[name] || renderUsage;
    for (const link of document.querySelectorAll("#nav a")) {
      if (link.dataset.route === (ROUTES[name] ? name : "usage")) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    document.title = `${capitalize((ROUTES[name] ? name : "usage").replace("-", " "))} · ogsmith dashboard`;
    try {
      await view(() => token === routeToken);
      if (token === routeToken) focusHeading();
    } catch (failure) {
      if (token !== routeToken || failure.status === 401) return;
      renderFatal(failure);
    }
  }

  function renderFatal(failure) {
    setMain(h("section.card", null, h("h1", null, "Something went wrong"), h("p.form-error", { role: "alert" }, failure.message), h("button.button", { type: "button", onclick: () => route() }, "Try again")));
  }

  // ---------------------------------------------------------------------------------------------
  // Usage

  async function renderUsage(current) {
    const overview = await call("GET", "/usage");
    if (!current()) return;
    const { usage, rate_limit: rate } = overview;
    const me = state.me;
    const percent = Math.min(100, usage.percent_used);
    const fill = h("span.meter-fill");
    fill.style.width = `${percent}%`;
    const meter = h(
      "div.meter",
      { role: "progressbar", "aria-label": "Quota used", "aria-valuemin": "0", "aria-valuemax": String(usage.quota), "aria-valuenow": String(usage.used), "aria-valuetext": `${fmt(usage.used)} of ${fmt(usage.quota)} images` },
      fill,
    );
    meter.classList.add(`is-${overview.quota_state}`);

    const quotaPill = {
      available: ["ok", "Quota available"],
      warning: ["warn", "Quota above 80 %"],
      exhausted: ["bad", "Quota exhausted"],
    }[overview.quota_state];
    const subscriptionPill = me.blocked ? ["bad", me.account.status === "canceled" ? "Subscription canceled" : "Payment past due"] : ["ok", "Subscription active"];
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
            fact("Rate limit", `${fmt(rate.requests_per_second)} requests per second`, "usage-rate"),
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
    );
  }

  function fact(term, value, testid) {
    return h("div", null, h("dt", null, term), h("dd", testid ? { dataset: { testid } } : null, value));
  }

  function pill(kind, text) {
    return h(`span.pill.pill-${kind}`, null, text);
  }

  /** The daily chart as inline SVG, drawn for the container's width (so labels stay readable at 375 px). */
  function chartBlock(overview) {
    const holder = h("div.chart");
    const total = overview.daily.reduce((sum, d) => sum + d.count, 0);
    const busiest = overview.daily.reduce((best, d) => (d.count > best.count ? d : best), { day: null, count: 0 });
    const summary = total === 0 ? "No images generated yet this month." : `${fmt(total)} images this month; busiest day ${dayFormat.format(new Date(busiest.day + "T00:00:00Z"))} with ${fmt(busiest.count)}.`;
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

    const svg = s("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `Images per day this month. ${summary}`, class: "chart-svg" });
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
        svg.append(s("text", { x: pad.left + i * slot + slot / 2, y: height - 8, "text-anchor": "middle", class: d.day === overview.today ? "tick today" : "tick" }, dayNumber));
      }
    });
    return svg;
  }

  // ---------------------------------------------------------------------------------------------
  // Webhooks

  async function renderWebhooks(current) {
    const { data: hooks } = await call("GET", "/webhooks");
    if (!current()) return;
    if (state.editing) state.editing = hooks.find((w) => w.id === state.editing.id) || null;

    setMain(
      h("h1", null, "Webhooks"),
      h("p.muted.lede", null, "ogsmith POSTs events to your endpoints as JSON, signed with the secret (X-OG-Signature: sha256=…). Failed deliveries are retried after 1 min, 5 min, 30 min, 2 h and 24 h; after that the endpoint is disabled until you re-enable it."),
      h("div.webhooks-layout", null, webhookForm(hooks), webhookList(hooks)),
    );
  }

  function webhookForm(hooks) {
    const editing = state.editing;
    const url = h("input#webhook-url", { type: "url", name: "url", inputmode: "url", autocomplete: "off", spellcheck: "false", placeholder: "https://example.com/hooks/ogsmith", value: editing ? editing.url : "" });
    const secret = h("input#webhook-secret", { type: "text", name: "secret", autocomplete: "off", spellcheck: "false", minlength: 16, maxlength: 256 });
    const checkboxes = EVENTS.map((name) =>
      h(
        "div.check",
        null,
        h(`input#event-${name.replace(/\./g, "-")}`, { type: "checkbox", name: "events", value: name, checked: editing ? editing.events.includes(name) : false }),
        h("label", { for: `event-${name.replace(/\./g, "-")}` }, name),
      ),
    );
    const events = h(
      "fieldset.field.events",
      { "data-field": "events", "aria-describedby": "webhook-events-error" },
      h("legend", null, "Events"),
      h("div.checks", null, checkboxes),
      h("p.field-error#webhook-events-error", { hidden: true, dataset: { errorFor: "events" } }),
    );
    const generate = h(
      "button.button.subtle.small.secret-generate",
      {
        type: "button",
        onclick: () => {
          const bytes = crypto.getRandomValues(new Uint8Array(24));
          secret.value = "whsec_" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
          secret.focus();
        },
      },
      "Generate a secret",
    );
    const save = h("button.button.primary", { type: "submit" }, "Save");
    const status = h("p.form-status", { role: "status" });
    const atLimit = !editing && hooks.length >= MAX_WEBHOOKS;

    const form = h(
      "form.stack",
      { novalidate: true },
      field("Endpoint URL", url, { key: "url", hint: "http(s), up to 2048 characters; https recommended." }),
      events,
      h(
        "div",
        null,
        field("Secret", secret, { key: "secret", hint: editing ? "16–256 characters. Leave empty to keep the current secret." : "16–256 characters, used to sign every delivery. It is never shown again." }),
        generate,
      ),
      h("p.form-error", { role: "alert", hidden: true, dataset: { errorFor: "_form" } }),
      h(
        "div.actions",
        null,
        save,
        editing
          ? h("button.button.subtle", { type: "button", onclick: () => { state.editing = null; route(); } }, "Cancel")
          : null,
      ),
      status,
      atLimit ? h("p.notice", null, `You have ${MAX_WEBHOOKS} webhooks, the most an account can have. Delete one to add another.`) : null,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearProblems(form);
      status.textContent = "";
      const body = {
        url: url.value.trim(),
        events: Array.from(form.querySelectorAll("input[name=events]:checked"), (box) => box.value),
      };
      if (!editing || secret.value !== "") body.secret = secret.value;
      save.disabled = true;
      try {
        if (editing) await call("PUT", `/webhooks/${encodeURIComponent(editing.id)}`, body);
        else await call("POST", "/webhooks", body);
        secret.value = "";
        state.editing = null;
        flash = editing ? "Webhook updated." : "Webhook added.";
        await route();
      } catch (failure) {
        showProblems(form, failure, (name) => (name === "url" ? "url" : name === "secret" ? "secret" : name === "events" || name.startsWith("events.") ? "events" : null));
      } finally {
        save.disabled = false;
      }
    });

    return h(
      "section.card.webhook-form",
      { "aria-labelledby": "webhook-form-title" },
      h("h2#webhook-form-title", null, editing ? "Edit webhook" : "Add a webhook"),
      editing ? h("p.muted.mono.wrap", null, editing.id) : null,
      form,
    );
  }

  /** A message shown once above the list after a save (the page re-renders). */
  let flash = "";

  function webhookList(hooks) {
    const message = flash;
    flash = "";
    return h(
      "section.webhook-list",
      { "aria-labelledby": "webhook-list-title" },
      h("h2#webhook-list-title", null, `Endpoints (${hooks.length} of ${MAX_WEBHOOKS})`),
      message ? h("p.notice.success", { role: "status" }, message) : null,
      hooks.length === 0 ? h("p.card.muted", null, "No webhooks yet. Add one with the form.") : h("ul.cards", null, hooks.map((hook) => h("li", null, webhookCard(hook)))),
    );
  }

  function webhookCard(hook) {
    const result = h("p.test-result", { role: "status", "aria-live": "polite" });
    const deliveriesBody = h("div.deliveries");
    const details = h("details", null, h("summary", null, "Recent delivery attempts"), deliveriesBody);
    const loadDeliveries = async () => {
      deliveriesBody.replaceChildren(h("p.muted", null, "Loading…"));
      try {
        const { data } = await call("GET", `/webhooks/${encodeURIComponent(hook.id)}/deliveries`);
        deliveriesBody.replaceChildren(deliveryTable(data));
      } catch (failure) {
        deliveriesBody.replaceChildren(h("p.form-error", null, failure.message));
      }
    };
    details.addEventListener("toggle", () => {
      if (details.open) loadDeliveries();
    });

    const testButton = h("button.button", { type: "button" }, "Send test");
    testButton.addEventListener("click", async () => {
      testButton.disabled = true;
      result.className = "test-result";
      result.textContent = "Sending a webhook.test event…";
      try {
        const outcome = await call("POST", `/webhooks/${encodeURIComponent(hook.id)}/test`);
        const code = outcome.status_code === null ? null : `${outcome.status_code}`;
        if (outcome.delivered) {
          result.textContent = `Delivered: the receiver answered ${code} in ${fmt(outcome.duration_ms)} ms.`;
          result.classList.add("ok");
        } else {
          const extra = outcome.error && outcome.error !== `HTTP ${code}` ? ` ${outcome.error}` : "";
          result.textContent = code ? `Failed: the receiver answered ${code} in ${fmt(outcome.duration_ms)} ms.${extra}` : `Failed: ${outcome.error || "no answer"}.`;
          result.classList.add("bad");
        }
        if (details.open) loadDeliveries();
      } catch (failure) {
        result.textContent = `Not sent: ${failure.message}`;
        result.classList.add("bad");
      } finally {
        testButton.disabled = false;
      }
    });

    const actions = [
      h("button.button", { type: "button", onclick: () => { state.editing = hook; route().then(() => { const input = $("#webhook-url"); if (input) input.focus(); }); } }, "Edit"),
      testButton,
    ];
    if (hook.status === "disabled") {
      actions.push(
        h(
          "button.button",
          {
            type: "button",
            onclick: async (event) => {
              event.currentTarget.disabled = true;
              try {
                await call("PUT", `/webhooks/${encodeURIComponent(hook.id)}`, { url: hook.url, events: hook.events, enabled: true });
                flash = "Webhook re-enabled.";
                await route();
              } catch (failure) {
                result.textContent = `Not re-enabled: ${failure.message}`;
                result.className = "test-result bad";
                event.currentTarget.disabled = false;
              }
            },
          },
          "Re-enable",
        ),
      );
    }
    actions.push(deleteButton(hook, result));

    return h(
      "article.card.webhook",
      { "aria-label": `Webhook ${hook.url}` },
      h("div.webhook-head", null, h("p.url.mono.wrap", null, hook.url), hook.status === "enabled" ? pill("ok", "Enabled") : pill("bad", "Disabled")),
      hook.status === "disabled" ? h("p.reason", null, hook.disabled_reason || "Disabled.") : null,
      h("ul.event-tags", { "aria-label": "Subscribed events" }, hook.events.map((name) => h("li.mono", null, name))),
      h("p.muted.small", null, `${hook.id} · added ${dateTimeFormat.format(new Date(hook.created_at))} UTC`),
      h("div.actions", null, actions),
      result,
      details,
    );
  }

  /** Two-step delete (no modal dialog): the first press asks, the second within 5 s deletes. */
  function deleteButton(hook, result) {
    const button = h("button.button.danger", { type: "button" }, "Delete");
    let armed = null;
    button.addEventListener("click", async () => {
      if (!armed) {
        button.textContent = "Confirm delete";
        armed = setTimeout(() => {
          armed = null;
          button.textContent = "Delete";
        }, 5000);
        return;
      }
      clearTimeout(armed);
      armed = null;
      button.disabled = true;
      try {
        await call("DELETE", `/webhooks/${encodeURIComponent(hook.id)}`);
        if (state.editing && state.editing.id === hook.id) state.editing = null;
        flash = "Webhook deleted.";
        await route();
      } catch (failure) {
        result.textContent = `Not deleted: ${failure.message}`;
        result.className = "test-result bad";
        button.disabled = false;
        button.textContent = "Delete";
      }
    });
    return button;
  }

  function deliveryTable(rows) {
    if (rows.length === 0) return h("p.muted", null, "No delivery attempts yet.");
    return h(
      "div.table-scroll",
      { tabindex: "0", role: "region", "aria-label": "Delivery attempts" },
      h(
        "table",
        null,
        h("thead", null, h("tr", null, ["Time (UTC)", "Event", "Attempt", "Result", "Duration"].map((label) => h("th", { scope: "col" }, label)))),
        h(
          "tbody",
          null,
          rows.map((row) =>
            h(
              "tr",
              null,
              h("td", null, dateTimeFormat.format(new Date(row.created_at))),
              h("td.mono", null, row.event_type),
              h("td", null, String(row.attempt)),
              h(
                "td",
                null,
                row.delivered ? pill("ok", String(row.status_code)) : pill("bad", row.status_code !== null ? String(row.status_code) : "error"),
                row.error && row.error !== `HTTP ${row.status_code}` ? h("span.small.block", null, row.error) : null,
                row.next_attempt_at ? h("span.small.block.muted", null, `retry ${dateTimeFormat.format(new Date(row.next_attempt_at))}`) : null,
              ),
              h("td", null, `${fmt(row.duration_ms)} ms`),
            ),
          ),
        ),
      ),
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Playground

  const SAMPLE_VALUES = {
    title: "Bun Meetup Berlin",
    subtitle: "Fast JavaScript, together",
    date: "Thursday, March 14",
    time: "18:30 CET",
    location: "Berlin",
  };

  async function renderPlayground(current) {
    if (!state.templates) state.templates = (await call("GET", "/templates")).data;
    if (!current()) return;
    const templates = state.templates;
    const pg = state.playground;
    if (!pg.template || !templates.some((t) => t.id === pg.template)) pg.template = templates.some((t) => t.id === "event") ? "event" : templates[0].id;

    const image = h("img#preview-image", { alt: "Preview of the image", width: 1200, height: 630 });
    const status = h("p.preview-status", { role: "status", "aria-live": "polite" });
    const curl = h("textarea#curl-command.mono", { readonly: true, rows: 6, spellcheck: "false", wrap: "off" });
    const copy = h("button.button.small", { type: "button" }, "Copy");
    const fieldsBox = h("div.stack");
    const form = h("form.stack", { novalidate: true });

    const templateSelect = h(
      "select#template-select",
      { name: "template" },
      templates.map((t) => h("option", { value: t.id, selected: t.id === pg.template }, t.id)),
    );
    const themeSelect = h("select#theme-select", { name: "theme" }, ["dark", "light"].map((theme) => h("option", { value: theme, selected: theme === pg.theme }, theme)));

    const valuesOf = (id) => (pg.values[id] ??= {});
    const fieldsFor = (template) => {
      const values = valuesOf(template.id);
      return template.fields.map((f) => {
        if (values[f.name] === undefined) values[f.name] = SAMPLE_VALUES[f.name] ?? "";
        const id = `field-${f.name}`;
        const input = h(`input#${id}`, {
          type: f.type === "image_url" ? "url" : "text",
          name: f.name,
          value: values[f.name],
          maxlength: f.max_length,
          required: f.required,
          autocomplete: "off",
          placeholder: f.type === "image_url" ? "https://…" : "",
        });
        input.addEventListener("input", () => {
          values[f.name] = input.value;
          schedule();
        });
        const hint = [f.description, f.required ? "Required." : null, `Up to ${fmt(f.max_length)} characters.`].filter(Boolean).join(" ");
        return field(f.required ? `${f.name} (required)` : f.name, input, { key: f.name, hint });
      });
    };

    const requestBody = () => {
      const template = templates.find((t) => t.id === pg.template);
      const body = { template: template.id, theme: pg.theme };
      for (const f of template.fields) {
        const value = valuesOf(template.id)[f.name];
        if (value !== undefined && value !== "") body[f.name] = value;
      }
      return body;
    };

    const shellQuote = (text) => `'${text.replace(/'/g, `'\\''`)}'`;
    const updateCurl = () => {
      const body = JSON.stringify(requestBody());
      curl.value = [
        `curl -X POST ${shellQuote(location.origin + "/api/generate")} \\`,
        `  -H "X-API-Key: $OGSMITH_API_KEY" \\`,
        `  -H 'Content-Type: application/json' \\`,
        `  -d ${shellQuote(body)} \\`,
        `  -o og-image.png`,
      ].join("\n");
    };

    let timer = null;
    let inflight = null;
    let sequence = 0;
    let objectUrl = null;
    const schedule = (delay = PREVIEW_DEBOUNCE_MS) => {
      updateCurl();
      clearTimeout(timer);
      timer = setTimeout(preview, delay);
    };
    const preview = async () => {
      if (!image.isConnected) return;
      const mine = ++sequence;
      if (inflight) inflight.abort();
      inflight = new AbortController();
      status.className = "preview-status";
      status.textContent = "Rendering…";
      clearProblems(form);
      try {
        const res = await call("POST", "/preview", requestBody(), { raw: true, signal: inflight.signal });
        const blob = await res.blob();
        if (mine !== sequence) return;
        if (objectUrl) URL.revokeObjectURL(objectUrl);
        objectUrl = URL.createObjectURL(blob);
        image.src = objectUrl;
        image.alt = `Preview of the ${pg.template} template${valuesOf(pg.template).title ? `: ${valuesOf(pg.template).title}` : ""}`;
        const rendered = res.headers.get("x-render-cache") === "hit" ? "Served from the render cache" : `Rendered in ${res.headers.get("x-generation-time-ms") || "?"} ms`;
        status.textContent = `${rendered} · not counted toward your quota`;
      } catch (failure) {
        if (failure && failure.name === "AbortError") return;
        if (mine !== sequence) return;
        status.className = "preview-status bad";
        if (failure.code === "RATE_LIMIT_EXCEEDED") {
          const wait = Math.max(1, failure.retryAfter || 1);
          status.textContent = `Rate limited (${fmt(state.me.limits.requests_per_second)} per second, shared with your API calls). Retrying in ${wait} s…`;
          schedule(wait * 1000);
        } else if (failure.code === "VALIDATION_ERROR") {
          status.textContent = "Fix the highlighted fields to see the preview.";
          showProblems(form, failure, (name) => name);
        } else {
          status.textContent = `${failure.message}${failure.code ? ` (${failure.code})` : ""}`;
        }
      }
    };

    const renderFields = () => {
      const template = templates.find((t) => t.id === pg.template);
      fieldsBox.replaceChildren(h("p.hint", null, template.description), ...fieldsFor(template));
    };
    templateSelect.addEventListener("change", () => {
      pg.template = templateSelect.value;
      renderFields();
      schedule(0);
    });
    themeSelect.addEventListener("change", () => {
      pg.theme = themeSelect.value;
      schedule(0);
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      schedule(0);
    });
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(curl.value);
      } catch {
        curl.select();
        document.execCommand("copy");
      }
      copy.textContent = "Copied";
      setTimeout(() => (copy.textContent = "Copy"), 1500);
    });

    form.append(
      h("div.row", null, field("Template", templateSelect), field("Theme", themeSelect, { key: "theme" })),
      fieldsBox,
      h("p.form-error", { role: "alert", hidden: true, dataset: { errorFor: "_form" } }),
    );
    renderFields();

    setMain(
      h("h1", null, "Playground"),
      h("p.muted.lede", null, "Fill in a template and watch the preview. Previews are rate limited like API calls but never count toward your quota."),
      h(
        "div.playground",
        null,
        h("section.card", { "aria-labelledby": "pg-fields-title" }, h("h2#pg-fields-title", null, "Fields"), form),
        h(
          "section.card.preview",
          { "aria-labelledby": "pg-preview-title" },
          h("h2#pg-preview-title", null, "Preview"),
          h("div.frame", null, image),
          status,
          h("div.curl-head", null, h("label", { for: "curl-command" }, "curl command"), copy),
          curl,
          h("p.hint", null, "Set OGSMITH_API_KEY in your shell; the dashboard never shows your key."),
        ),
      ),
    );
    schedule(0);
  }

  // ---------------------------------------------------------------------------------------------
  // Signing keys (public image URLs): create (the secret is shown once), list, delete, and build
  // a signed URL from the playground's current fields. Self-contained: it only reads
  // state.playground and the shared helpers above.

  const MAX_SIGNING_KEYS = 5;

  async function renderSigningKeys(current) {
    const [keys, templates] = await Promise.all([call("GET", "/signing-keys"), state.templates ? Promise.resolve({ data: state.templates }) : call("GET", "/templates")]);
    if (!current()) return;
    state.templates = templates.data;
    const list = keys.data;

    const created = h("div.stack", { role: "status", "aria-live": "polite" });
    const createButton = h("button.button", { type: "button", disabled: list.length >= MAX_SIGNING_KEYS }, "Create signing key");
    const createError = h("p.form-error", { role: "alert", hidden: true });
    createButton.addEventListener("click", async () => {
      createButton.disabled = true;
      createError.hidden = true;
      try {
        const key = await call("POST", "/signing-keys");
        const secret = h("input#signing-secret.mono", { type: "text", readonly: true, value: key.secret, spellcheck: "false", autocomplete: "off" });
        await renderSigningKeys(current);
        const box = $("#signing-created");
        if (box) {
          box.replaceChildren(
            h("p", null, `Key ${key.id} created. Copy the secret now: it is shown only this once.`),
            field("Secret (shown once)", secret, { hint: "Keep it where your pages are built (an environment variable); never in the browser." }),
          );
          secret.select();
        }
      } catch (failure) {
        createError.textContent = failure.message;
        createError.hidden = false;
        createButton.disabled = false;
      }
    });

    const rows = list.map((key) => {
      const remove = h("button.button.small.danger", { type: "button", "aria-label": `Delete ${key.id}` }, "Delete");
      remove.addEventListener("click", async () => {
        remove.disabled = true;
        try {
          await call("DELETE", `/signing-keys/${encodeURIComponent(key.id)}`);
          await renderSigningKeys(current);
        } catch (failure) {
          remove.disabled = false;
          createError.textContent = failure.message;
          createError.hidden = false;
        }
      });
      return h(
        "tr",
        null,
        h("td.mono", null, key.id),
        h("td", null, dateTimeFormat.format(new Date(key.created_at))),
        h("td", null, key.last_used_at ? dateTimeFormat.format(new Date(key.last_used_at)) : "never"),
        h("td", null, remove),
      );
    });
    const table = list.length
      ? h(
          "div.table-scroll",
          { tabindex: "0", role: "region", "aria-label": "Signing keys" },
          h("table", null, h("thead", null, h("tr", null, ["Key id", "Created (UTC)", "Last used (UTC)", "Actions"].map((label) => h("th", { scope: "col" }, label)))), h("tbody", null, rows)),
        )
      : h("p.muted", null, "No signing keys yet.");

    // The URL builder: the playground's template, theme and fields (its samples when it was never opened).
    const keySelect = h("select#signing-key-select", { name: "signing_key_id" }, list.map((key) => h("option", { value: key.id }, key.id)));
    const expiresIn = h("input#signing-expires-in", { type: "number", min: 1, step: 1, inputmode: "numeric", placeholder: "never" });
    const urlOut = h("input#signed-url.mono", { type: "text", readonly: true, spellcheck: "false" });
    const openLink = h("a", { href: "#", target: "_blank", rel: "noopener", hidden: true }, "Open image");
    const buildStatus = h("p.form-error", { role: "alert", hidden: true });
    const buildButton = h("button.button", { type: "button", disabled: list.length === 0 }, "Build URL");
    const playgroundBody = () => {
      const pg = state.playground;
      const template = state.templates.find((t) => t.id === pg.template) || state.templates.find((t) => t.id === "event") || state.templates[0];
      const values = pg.values[template.id] || {};
      const body = { template: template.id, theme: pg.theme };
      for (const f of template.fields) {
        const value = values[f.name] !== undefined ? values[f.name] : (SAMPLE_VALUES[f.name] ?? "");
        if (value !== "") body[f.name] = value;
      }
      return body;
    };
    buildButton.addEventListener("click", async () => {
      buildStatus.hidden = true;
      const body = { ...playgroundBody(), signing_key_id: keySelect.value };
      if (expiresIn.value !== "") body.expires_in = Number(expiresIn.value);
      try {
        const { url } = await call("POST", "/image-urls", body);
        urlOut.value = url;
        openLink.href = url;
        openLink.hidden = false;
      } catch (failure) {
        buildStatus.textContent = failure.details.length ? `${failure.message}: ${failure.details.map((d) => `${d.field} ${d.message}`).join("; ")}` : failure.message;
        buildStatus.hidden = false;
      }
    });

    setMain(
      h("h1", null, "Signing keys"),
      h("p.muted.lede", null, `Signing keys sign public image URLs for <meta property="og:image">: crawlers fetch them without your API key. At most ${MAX_SIGNING_KEYS}; deleting one stops its URLs at once.`),
      h("section.card.stack", { "aria-labelledby": "sk-list-title" }, h("h2#sk-list-title", null, "Keys"), table, h("div.row", null, createButton), createError, h("div#signing-created.stack", null, created)),
      h(
        "section.card.stack",
        { "aria-labelledby": "sk-build-title" },
        h("h2#sk-build-title", null, "Build URL"),
        h("p.hint", null, "From the Playground's template, theme and fields. A distinct image counts once a month, however often it is fetched."),
        h("div.row", null, field("Signing key", keySelect), field("Expires in (seconds)", expiresIn, { hint: "Optional. Empty: the URL never expires." })),
        h("div.row", null, buildButton),
        buildStatus,
        field("Image URL", urlOut),
        openLink,
      ),
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Start

  document.addEventListener("DOMContentLoaded", () => {
    $("#sign-out").addEventListener("click", signOut);
    window.addEventListener("hashchange", () => route());
    route();
  });
})();
