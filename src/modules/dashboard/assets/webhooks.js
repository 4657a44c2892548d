// The Webhooks page: list, add/edit form, test send, delete, re-enable, delivery attempts.
// The rules (events, limits) come from the server, never copied here.
import { call, clearProblems, field, showProblems } from "./api.js";
import { route, rules, state } from "./state.js";
import { $, dateTimeFormat, fmt, h, pill, setMain } from "./dom.js";

// ---------------------------------------------------------------------------------------------
// Webhooks

export async function renderWebhooks(current) {
  const [{ data: hooks }, serverRules] = await Promise.all([call("GET", "/webhooks"), rules()]);
  if (!current()) return;
  const limits = serverRules.webhooks;
  if (state.editing) state.editing = hooks.find((w) => w.id === state.editing.id) || null;

  setMain(
    h("h1", null, "Webhooks"),
    h(
      "p.muted.lede",
      null,
      "ogsmith POSTs events to your endpoints as JSON, signed with the secret (X-OG-Signature: sha256=…). Failed deliveries are retried after 1 min, 5 min, 30 min, 2 h and 24 h; after that the endpoint is disabled until you re-enable it.",
    ),
    h("div.webhooks-layout", null, webhookForm(hooks, limits), webhookList(hooks, limits)),
  );
}

function webhookForm(hooks, limits) {
  const editing = state.editing;
  const url = h("input#webhook-url", {
    type: "url",
    name: "url",
    inputmode: "url",
    maxlength: limits.url_max_length,
    autocomplete: "off",
    spellcheck: "false",
    placeholder: "https://example.com/hooks/ogsmith",
    value: editing ? editing.url : "",
  });
  const secret = h("input#webhook-secret", {
    type: "text",
    name: "secret",
    autocomplete: "off",
    spellcheck: "false",
    minlength: limits.secret_min_length,
    maxlength: limits.secret_max_length,
  });
  const checkboxes = limits.events.map((name) =>
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
        // whsec_ + base64 of 32 random bytes: the form the standardwebhooks and svix libraries
        // take as is (the server keys the Standard Webhooks signature with the decoded bytes).
        const bytes = crypto.getRandomValues(new Uint8Array(32));
        secret.value = "whsec_" + btoa(String.fromCharCode(...bytes));
        secret.focus();
      },
    },
    "Generate a secret",
  );
  const save = h("button.button.primary", { type: "submit" }, "Save");
  const status = h("p.form-status", { role: "status" });
  const secretRange = `${limits.secret_min_length}–${limits.secret_max_length}`;
  const atLimit = !editing && hooks.length >= limits.max_per_account;

  const form = h(
    "form.stack",
    { novalidate: true },
    field("Endpoint URL", url, { key: "url", hint: `http(s), up to ${fmt(limits.url_max_length)} characters; https recommended.` }),
    events,
    h(
      "div",
      null,
      field("Secret", secret, {
        key: "secret",
        hint: editing
          ? `${secretRange} characters. Leave empty to keep the current secret.`
          : `${secretRange} characters, used to sign every delivery. It is never shown again.`,
      }),
      generate,
    ),
    h("p.form-error", { role: "alert", hidden: true, dataset: { errorFor: "_form" } }),
    h(
      "div.actions",
      null,
      save,
      editing
        ? h(
            "button.button.subtle",
            {
              type: "button",
              onclick: () => {
                state.editing = null;
                route();
              },
            },
            "Cancel",
          )
        : null,
    ),
    status,
    atLimit ? h("p.notice", null, `You have ${limits.max_per_account} webhooks, the most an account can have. Delete one to add another.`) : null,
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
      showProblems(form, failure, (name) =>
        name === "url" ? "url" : name === "secret" ? "secret" : name === "events" || name.startsWith("events.") ? "events" : null,
      );
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

function webhookList(hooks, limits) {
  const message = flash;
  flash = "";
  return h(
    "section.webhook-list",
    { "aria-labelledby": "webhook-list-title" },
    h("h2#webhook-list-title", null, `Endpoints (${hooks.length} of ${limits.max_per_account})`),
    message ? h("p.notice.success", { role: "status" }, message) : null,
    hooks.length === 0
      ? h("p.card.muted", null, "No webhooks yet. Add one with the form.")
      : h(
          "ul.cards",
          null,
          hooks.map((hook) => h("li", null, webhookCard(hook))),
        ),
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
        result.textContent = code
          ? `Failed: the receiver answered ${code} in ${fmt(outcome.duration_ms)} ms.${extra}`
          : `Failed: ${outcome.error || "no answer"}.`;
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
    h(
      "button.button",
      {
        type: "button",
        onclick: () => {
          state.editing = hook;
          route().then(() => {
            const input = $("#webhook-url");
            if (input) input.focus();
          });
        },
      },
      "Edit",
    ),
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
    h(
      "ul.event-tags",
      { "aria-label": "Subscribed events" },
      hook.events.map((name) => h("li.mono", null, name)),
    ),
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
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          ["Time (UTC)", "Event", "Attempt", "Result", "Duration"].map((label) => h("th", { scope: "col" }, label)),
        ),
      ),
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
