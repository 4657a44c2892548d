// The Templates page: the account's own templates (name, id, version, last change), new from a
// starter or blank, duplicate, delete with a confirmation. Editing lives in template-editor.js
// (#/templates/<id>). Every name, id and message from the server is set as text.
import { call, clearProblems, field, showProblems } from "./api.js";
import { $, confirmation, dateTimeFormat, h, setMain } from "./dom.js";
import { renderTemplateEditor } from "./template-editor.js";

/** A blank design: one field, one element, both theme sets, so a new author sees each part once. */
const BLANK = {
  name: "Blank",
  description: "",
  html: [
    '<div style="display: flex; flex-direction: column; justify-content: center; width: 100%; height: 100%; box-sizing: border-box; padding: 72px; background-color: var(--bg); color: var(--fg); font-family: Inter;">',
    '  <h1 data-fit-lines="3" data-min-font-size="40" style="margin: 0; font-size: 80px; font-weight: 800; line-height: 1.1;">{{title}}</h1>',
    "</div>",
    "",
  ].join("\n"),
  fields: [{ name: "title", type: "text", required: true, max_length: 120, description: "The card's headline." }],
  themes: { dark: { bg: "#0B0B14", fg: "#FFFFFF" }, light: { bg: "#FFFFFF", fg: "#0B0B14" } },
  width: 1200,
  height: 630,
  sample: { title: "Hello from my own template" },
};

/** The definition of a template view (what create and update take): no version or timestamps. */
export function definitionOf(view) {
  const { id, name, description, html, fields, themes, width, height, sample } = view;
  return { id, name, description, html, fields, themes, width, height, sample };
}

let starters = null;
async function loadStarters() {
  if (!starters) starters = (await call("GET", "/starters")).data;
  return starters;
}

/** Routes #/templates and #/templates/<id>. */
export async function renderTemplates(current) {
  const [, id] = location.hash.replace(/^#\/?/, "").split("/");
  if (id) return renderTemplateEditor(current, decodeURIComponent(id));
  return renderTemplateList(current);
}

/** A free id near `base`: base, base-2, base-3… (ids are at most 40 characters). */
function freeId(base, taken) {
  const clean =
    base
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, "-")
      .replace(/^[^a-z]+/, "")
      .slice(0, 34) || "template";
  if (!taken.has(clean)) return clean;
  for (let n = 2; ; n++) if (!taken.has(`${clean}-${n}`)) return `${clean}-${n}`;
}

async function renderTemplateList(current, notice) {
  const [list, starterList] = await Promise.all([call("GET", "/account-templates"), loadStarters()]);
  if (!current()) return;
  const templates = list.data;
  const taken = new Set(templates.map((t) => t.id));
  const status = h("p.notice.success", { role: "status", hidden: !notice }, notice || "");
  const listError = h("p.form-error", { role: "alert", hidden: true });
  const rerender = (message) => renderTemplateList(current, message);

  // --- The account's templates ---------------------------------------------------------------
  const rowFor = (t) => {
    const actions = h("td.actions-cell");
    const showActions = () => {
      const edit = h("a.button.small", { href: `#/templates/${encodeURIComponent(t.id)}`, "aria-label": `Edit ${t.id}` }, "Edit");
      const duplicate = h("button.button.small", { type: "button", "aria-label": `Duplicate ${t.id}` }, "Duplicate");
      const remove = h("button.button.small.danger", { type: "button", "aria-label": `Delete ${t.id}` }, "Delete");
      duplicate.addEventListener("click", () => showDuplicate());
      remove.addEventListener("click", () => showConfirm());
      actions.replaceChildren(h("div.actions", null, edit, duplicate, remove));
    };
    const showConfirm = () => {
      const { box, yes, no } = confirmation({
        question: `Delete ${t.id} and all its versions? Its image URLs stop working.`,
        yes: `Delete ${t.id}`,
        attrs: { role: "group", "aria-label": `Confirm deleting ${t.id}` },
      });
      no.addEventListener("click", () => {
        showActions();
        actions.querySelector("button")?.focus();
      });
      yes.addEventListener("click", async () => {
        yes.disabled = true;
        try {
          await call("DELETE", `/account-templates/${encodeURIComponent(t.id)}`);
          await rerender(`Deleted ${t.id}. Its signed URLs no longer render.`);
        } catch (failure) {
          yes.disabled = false;
          listError.textContent = failure.message;
          listError.hidden = false;
        }
      });
      actions.replaceChildren(box);
      no.focus();
    };
    const showDuplicate = () => {
      const input = h(`input#duplicate-${t.id}`, {
        type: "text",
        value: freeId(`${t.id}-copy`, taken),
        autocomplete: "off",
        spellcheck: "false",
        maxlength: 40,
      });
      const create = h("button.button.small.primary", { type: "submit" }, "Create copy");
      const cancel = h("button.button.small", { type: "button" }, "Cancel");
      const form = h(
        "form.stack.duplicate",
        { novalidate: true },
        field(`Id of the copy of ${t.id}`, input, { key: "id" }),
        h("p.form-error", { role: "alert", hidden: true, dataset: { errorFor: "_form" } }),
        h("div.actions", null, create, cancel),
      );
      cancel.addEventListener("click", () => {
        showActions();
        actions.querySelectorAll("button")[0]?.focus();
      });
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        create.disabled = true;
        clearProblems(form);
        try {
          const latest = await call("GET", `/account-templates/${encodeURIComponent(t.id)}`);
          const copy = await call("POST", "/account-templates", {
            ...definitionOf(latest),
            id: input.value.trim(),
            name: `${latest.name || latest.id} (copy)`.slice(0, 100),
          });
          location.hash = `#/templates/${encodeURIComponent(copy.id)}`;
        } catch (failure) {
          create.disabled = false;
          showProblems(form, failure, (name) => (name === "id" ? "id" : null));
        }
      });
      actions.replaceChildren(form);
      input.focus();
      input.select();
    };
    showActions();
    return h(
      "tr",
      null,
      h("td", { dataset: { label: "Name" } }, h("a", { href: `#/templates/${encodeURIComponent(t.id)}` }, t.name || t.id)),
      h("td.mono", { dataset: { label: "Id" } }, t.id),
      h("td", { dataset: { label: "Version" } }, String(t.version)),
      h("td", { dataset: { label: "Updated (UTC)" } }, dateTimeFormat.format(new Date(t.updated_at))),
      actions,
    );
  };
  const table = templates.length
    ? h(
        "div.table-scroll",
        { tabindex: "0", role: "region", "aria-label": "Your templates" },
        h(
          "table#template-list",
          null,
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              ["Name", "Id", "Version", "Updated (UTC)", "Actions"].map((label) => h("th", { scope: "col" }, label)),
            ),
          ),
          h("tbody", null, templates.map(rowFor)),
        ),
      )
    : h("p.muted", null, "No templates yet. Start from a design below: it renders as is, and you can change everything.");

  // --- New template ---------------------------------------------------------------------------
  const choices = [{ id: "", name: BLANK.name, description: "One headline on a plain background: start from nothing.", definition: BLANK }].concat(
    starterList.map((s) => ({ id: s.id, name: s.name, description: s.description, definition: s })),
  );
  const idInput = h("input#new-template-id", { type: "text", autocomplete: "off", spellcheck: "false", maxlength: 40, required: true });
  const nameInput = h("input#new-template-name", { type: "text", autocomplete: "off", maxlength: 100 });
  let chosen = choices[1] || choices[0];
  const choose = (choice) => {
    chosen = choice;
    idInput.value = freeId(choice.id || "my-template", taken);
    nameInput.value = choice.id ? choice.name : "";
  };
  const radios = choices.map((choice) => {
    const radioId = `starter-${choice.id || "blank"}`;
    const radio = h(`input#${radioId}`, { type: "radio", name: "starter", value: choice.id, checked: choice === chosen });
    radio.addEventListener("change", () => radio.checked && choose(choice));
    return h(
      "li.starter",
      null,
      radio,
      h(
        "label",
        { for: radioId },
        // The picture repeats what the name and description say: decorative for a screen reader.
        choice.id
          ? h("img.starter-picture", {
              src: `/dashboard/api/starters/${encodeURIComponent(choice.id)}/picture`,
              alt: "",
              width: 480,
              height: 252,
              loading: "lazy",
            })
          : h("span.starter-picture.blank-picture", { "aria-hidden": "true" }),
        h("span.starter-name", null, choice.name),
        h("span.starter-description", null, choice.description),
      ),
    );
  });
  const createButton = h("button.button.primary", { type: "submit" }, "Create template");
  const createForm = h(
    "form.stack",
    { novalidate: true },
    h("fieldset", null, h("legend", null, "Start from"), h("ul.starters", null, radios)),
    h(
      "div.row",
      null,
      field("Template id", idInput, { key: "id", hint: "Lowercase letters, digits, - and _; starts with a letter. Used in API calls." }),
      field("Name", nameInput, { key: "name", hint: "Shown in this list." }),
    ),
    h("p.form-error", { role: "alert", hidden: true, dataset: { errorFor: "_form" } }),
    h("div.actions", null, createButton),
  );
  choose(chosen);
  createForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    createButton.disabled = true;
    clearProblems(createForm);
    try {
      const { definition } = chosen;
      const body = { ...definitionOf(definition), id: idInput.value.trim(), name: nameInput.value.trim() || idInput.value.trim() };
      const created = await call("POST", "/account-templates", body);
      location.hash = `#/templates/${encodeURIComponent(created.id)}`;
    } catch (failure) {
      createButton.disabled = false;
      showProblems(createForm, failure, (name) => (name === "id" || name === "name" ? name : null));
    }
  });

  setMain(
    h("h1", null, "Templates"),
    h(
      "p.muted.lede",
      null,
      "Your own card designs: HTML with inline styles and {{placeholders}}, versioned on every save. Render one with template set to its id, in POST /api/generate or a signed URL.",
    ),
    status,
    h("section.card.stack", { "aria-labelledby": "tpl-list-title" }, h("h2#tpl-list-title", null, "Your templates"), table, listError),
    h("section.card.stack", { "aria-labelledby": "tpl-new-title" }, h("h2#tpl-new-title", null, "New template"), createForm),
  );
  if (notice) $("#main h1")?.focus();
}
