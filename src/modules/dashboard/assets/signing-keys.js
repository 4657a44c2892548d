// The Signing keys page (public image URLs): create (the secret is shown once), list, delete, and
// build a signed URL from the playground's current fields. The key limit comes from the server.
import { call, field } from "./api.js";
import { $, dateTimeFormat, h, setMain } from "./dom.js";
import { SAMPLE_VALUES } from "./playground.js";
import { rules, state } from "./state.js";

export async function renderSigningKeys(current) {
  const [keys, serverRules] = await Promise.all([call("GET", "/signing-keys"), rules()]);
  if (!state.catalog) state.catalog = await call("GET", "/templates");
  if (!current()) return;
  const list = keys.data;
  const maxKeys = serverRules.signing_keys.max_per_account;

  const created = h("div.stack", { role: "status", "aria-live": "polite" });
  const createButton = h("button.button", { type: "button", disabled: list.length >= maxKeys }, "Create signing key");
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
        h(
          "table",
          null,
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              ["Key id", "Created (UTC)", "Last used (UTC)", "Actions"].map((label) => h("th", { scope: "col" }, label)),
            ),
          ),
          h("tbody", null, rows),
        ),
      )
    : h("p.muted", null, "No signing keys yet.");

  // The URL builder: the playground's template, theme and fields (its samples when it was never opened).
  const keySelect = h(
    "select#signing-key-select",
    { name: "signing_key_id" },
    list.map((key) => h("option", { value: key.id }, key.id)),
  );
  const expiresIn = h("input#signing-expires-in", { type: "number", min: 1, step: 1, inputmode: "numeric", placeholder: "never" });
  const urlOut = h("input#signed-url.mono", { type: "text", readonly: true, spellcheck: "false" });
  const openLink = h("a", { href: "#", target: "_blank", rel: "noopener", hidden: true }, "Open image");
  const buildStatus = h("p.form-error", { role: "alert", hidden: true });
  const buildButton = h("button.button", { type: "button", disabled: list.length === 0 }, "Build URL");
  const playgroundBody = () => {
    const pg = state.playground;
    const templates = state.catalog.data;
    const template = templates.find((t) => t.id === pg.template) || templates.find((t) => t.id === "event") || templates[0];
    const values = pg.values[template.id] || {};
    const body = { template: template.id };
    if (pg.theme) body.theme = pg.theme;
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
      buildStatus.textContent = failure.details.length
        ? `${failure.message}: ${failure.details.map((d) => `${d.field} ${d.message}`).join("; ")}`
        : failure.message;
      buildStatus.hidden = false;
    }
  });

  setMain(
    h("h1", null, "Signing keys"),
    h(
      "p.muted.lede",
      null,
      `Signing keys sign public image URLs for <meta property="og:image">: crawlers fetch them without your API key. At most ${maxKeys}; deleting one stops its URLs at once.`,
    ),
    h(
      "section.card.stack",
      { "aria-labelledby": "sk-list-title" },
      h("h2#sk-list-title", null, "Keys"),
      table,
      h("div.row", null, createButton),
      createError,
      h("div#signing-created.stack", null, created),
    ),
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
