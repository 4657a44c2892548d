// The Playground: fields generated from the template catalog, live preview, a copyable curl.
import { call, clearProblems, field, showProblems } from "./api.js";
import { state } from "./state.js";
import { fmt, h, setMain } from "./dom.js";

const PREVIEW_DEBOUNCE_MS = 350;

// ---------------------------------------------------------------------------------------------
// Playground

/** What the playground shows before anything is typed; the URL builder signs the same. */
export const SAMPLE_VALUES = {
  title: "Bun Meetup Berlin",
  subtitle: "Fast JavaScript, together",
  date: "Thursday, March 14",
  time: "18:30 CET",
  location: "Berlin",
};

export async function renderPlayground(current) {
  if (!state.catalog) state.catalog = await call("GET", "/templates");
  if (!current()) return;
  const templates = state.catalog.data;
  // The parameters every template takes (theme values and default, …) come from the same catalog.
  const theme = state.catalog.parameters.find((p) => p.name === "theme");
  const pg = state.playground;
  if (!pg.theme || !theme.enum.includes(pg.theme)) pg.theme = theme.default;
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
  const themeSelect = h(
    "select#theme-select",
    { name: "theme" },
    theme.enum.map((value) => h("option", { value, selected: value === pg.theme }, value)),
  );
  // Width and height with the server's limits and defaults (the catalog's parameters).
  const sizeInputs = ["width", "height"].map((name) => {
    const param = state.catalog.parameters.find((p) => p.name === name);
    const input = h(`input#size-${name}`, {
      type: "number",
      name,
      inputmode: "numeric",
      min: param.minimum,
      max: param.maximum,
      step: 1,
      value: pg.size[name] ?? param.default,
    });
    input.addEventListener("input", () => {
      pg.size[name] = input.value === "" ? undefined : Number(input.value);
      schedule();
    });
    return { name, param, input };
  });

  // Values are kept per template. On a switch, what was typed into a field the new template
  // also has (title, subtitle, …) comes along, unless that field was already typed there.
  const valuesOf = (id) => (pg.values[id] ??= {});
  const typedIn = (id) => (pg.typed[id] ??= new Set());
  const carryOver = (from, to) => {
    const target = templates.find((t) => t.id === to);
    for (const f of target.fields) {
      if (typedIn(from).has(f.name) && !typedIn(to).has(f.name)) valuesOf(to)[f.name] = valuesOf(from)[f.name];
    }
  };
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
        typedIn(template.id).add(f.name);
        schedule();
      });
      const bound =
        f.type === "image_url" && f.max_url_length !== undefined
          ? `An http(s) URL up to ${fmt(f.max_url_length)} characters, or a data: image up to ${fmt(f.max_image_bytes / (1024 * 1024))} MiB.`
          : `Up to ${fmt(f.max_length)} characters.`;
      const hint = [f.description, f.required ? "Required." : null, bound].filter(Boolean).join(" ");
      return field(f.required ? `${f.name} (required)` : f.name, input, { key: f.name, hint });
    });
  };

  const requestBody = () => {
    const template = templates.find((t) => t.id === pg.template);
    const body = { template: template.id, theme: pg.theme };
    // Sizes only when changed, so the usual request stays as short as the API allows.
    for (const { name, param } of sizeInputs) if (pg.size[name] !== undefined && pg.size[name] !== param.default) body[name] = pg.size[name];
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
      `curl --fail-with-body -X POST ${shellQuote(location.origin + "/api/generate")} \\`,
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
      const rendered =
        res.headers.get("x-render-cache") === "hit" ? "Served from the render cache" : `Rendered in ${res.headers.get("x-generation-time-ms") || "?"} ms`;
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
    carryOver(pg.template, templateSelect.value);
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
    h(
      "div.row",
      null,
      sizeInputs.map(({ name, param, input }) =>
        field(name === "width" ? "Width" : "Height", input, {
          key: name,
          hint: `${fmt(param.minimum)}–${fmt(param.maximum)} px, default ${fmt(param.default)}.`,
        }),
      ),
    ),
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
