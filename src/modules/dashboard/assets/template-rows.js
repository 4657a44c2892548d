// The template editor's rows: one folded row per field (name, type, required, max length,
// description, sample value) and one row per theme variable (its dark and light values). Each
// input writes into the editor's draft and tells the editor through `edited`; inputs carry
// `data-problem` with the API's name for them, so a problem the server reports can point at its
// input.
import { h } from "./dom.js";

const FIELD_TYPES = ["text", "image_url", "color"];

/** A label above its control (the control carries the id). `prefix` is shown before the input. */
export function labelled(text, control, prefix) {
  return h(
    "div.field",
    null,
    h("label", { for: control.id }, text),
    prefix ? h("div.prefixed", null, h("span.prefix", { "aria-hidden": "true" }, prefix), control) : control,
  );
}

/** The one-line summary of a field: its name, type, whether it is required, its sample. */
function fieldSummary(f, index) {
  const name = f.name.trim() || `Field ${index + 1}`;
  const facts = [f.type, f.required ? "required" : null, f.sample ? `“${f.sample.length > 40 ? `${f.sample.slice(0, 40)}…` : f.sample}”` : null].filter(
    Boolean,
  );
  return `${name} · ${facts.join(" · ")}`;
}

/** The fields of `draft.fields`: `box` holds the rows, `add` appends a blank one, `render()` redraws from the draft. */
export function createFieldRows({ draft, nextKey, edited }) {
  const box = h("div.field-rows");
  const add = h("button.button.small", { type: "button" }, "Add field");
  add.addEventListener("click", () => {
    draft.fields.push({ key: nextKey(), name: "", type: "text", required: false, max_length: "", description: "", sample: "", open: true });
    render();
    box.querySelector(".field-row:last-child input")?.focus();
    edited();
  });

  function row(f, index) {
    const base = `field-${f.key}`;
    const name = h(`input#${base}-name.mono`, {
      type: "text",
      value: f.name,
      autocomplete: "off",
      spellcheck: "false",
      maxlength: 64,
      dataset: { problem: `fields.${index}.name` },
    });
    const type = h(
      `select#${base}-type`,
      { dataset: { problem: `fields.${index}.type` } },
      FIELD_TYPES.map((t) => h("option", { value: t, selected: t === f.type }, t)),
    );
    const required = h(`input#${base}-required`, { type: "checkbox", checked: Boolean(f.required) });
    const maxLength = h(`input#${base}-max`, {
      type: "number",
      min: 1,
      step: 1,
      inputmode: "numeric",
      value: f.max_length ?? "",
      dataset: { problem: `fields.${index}.max_length` },
    });
    const description = h(`input#${base}-description`, {
      type: "text",
      value: f.description ?? "",
      autocomplete: "off",
      maxlength: 300,
      dataset: { problem: `fields.${index}.description` },
    });
    const sample = h(`input#${base}-sample`, { type: "text", value: f.sample ?? "", autocomplete: "off", dataset: { problem: `sample.${f.name}` } });
    const remove = h("button.button.small.danger", { type: "button", "aria-label": `Remove field ${f.name || index + 1}` }, "Remove field");
    const summary = h("span.field-summary", null, fieldSummary(f, index));
    // Every change updates the draft, then the summary line of the folded row.
    const on = (control, event, apply) =>
      control.addEventListener(event, () =>
        edited(() => {
          apply();
          summary.textContent = fieldSummary(f, index);
        }),
      );
    on(name, "input", () => {
      f.name = name.value;
      sample.dataset.problem = `sample.${f.name.trim()}`;
    });
    on(type, "change", () => (f.type = type.value));
    on(required, "change", () => (f.required = required.checked));
    on(maxLength, "input", () => (f.max_length = maxLength.value));
    on(description, "input", () => (f.description = description.value));
    on(sample, "input", () => (f.sample = sample.value));
    remove.addEventListener("click", () => {
      draft.fields = draft.fields.filter((other) => other !== f);
      render();
      add.focus();
      edited();
    });
    const details = h(
      "details.field-row",
      { open: f.open === true },
      h("summary", null, summary),
      h(
        "div.field-grid",
        null,
        labelled("Name", name),
        labelled("Type", type),
        labelled("Max length", maxLength),
        h("div.check", null, required, h("label", { for: required.id }, "Required")),
      ),
      labelled("Description", description),
      labelled("Sample value", sample),
      h("div.actions", null, remove),
    );
    details.addEventListener("toggle", () => (f.open = details.open));
    return details;
  }

  function render() {
    if (draft.fields.length === 0) box.replaceChildren(h("p.muted.small", null, "No fields: the card is the same for every request."));
    else box.replaceChildren(...draft.fields.map(row));
  }
  return { box, add, render };
}

/** The theme variables of `draft.vars`, each with its dark and light value. */
export function createVariableRows({ draft, nextKey, edited }) {
  const box = h("div.var-rows");
  const add = h("button.button.small", { type: "button" }, "Add variable");
  add.addEventListener("click", () => {
    draft.vars.push({ key: nextKey(), name: "", dark: "", light: "" });
    render();
    box.querySelector(".var-row:last-child input")?.focus();
    edited();
  });

  function row(v) {
    const base = `var-${v.key}`;
    const name = h(`input#${base}-name.mono`, { type: "text", value: v.name, autocomplete: "off", spellcheck: "false", dataset: { problem: `var:${v.name}` } });
    const dark = h(`input#${base}-dark.mono`, {
      type: "text",
      value: v.dark,
      autocomplete: "off",
      spellcheck: "false",
      dataset: { problem: `themes.dark.${v.name}` },
    });
    const light = h(`input#${base}-light.mono`, {
      type: "text",
      value: v.light,
      autocomplete: "off",
      spellcheck: "false",
      dataset: { problem: `themes.light.${v.name}` },
    });
    const remove = h("button.button.small.danger", { type: "button", "aria-label": `Remove variable ${v.name || ""}`.trim() }, "Remove");
    name.addEventListener("input", () =>
      edited(() => {
        v.name = name.value;
        dark.dataset.problem = `themes.dark.${v.name.trim()}`;
        light.dataset.problem = `themes.light.${v.name.trim()}`;
      }),
    );
    dark.addEventListener("input", () => edited(() => (v.dark = dark.value)));
    light.addEventListener("input", () => edited(() => (v.light = light.value)));
    remove.addEventListener("click", () => {
      draft.vars = draft.vars.filter((other) => other !== v);
      render();
      add.focus();
      edited();
    });
    return h("div.var-row", null, labelled("Variable", name, "--"), labelled("Dark", dark), labelled("Light", light), remove);
  }

  function render() {
    if (draft.vars.length === 0) box.replaceChildren(h("p.muted.small", null, "No theme variables."));
    else box.replaceChildren(...draft.vars.map(row));
  }
  return { box, add, render };
}
