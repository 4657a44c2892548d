// The template editor (#/templates/<id>): the HTML in a code editor, the fields with their sample
// values, theme variables for dark and light, and a live preview that follows the typing. Save
// adds a version; any version can be viewed — its picture, its HTML read-only and a line diff
// against what the editor holds — and restored (as a new version); the signed URL and the curl
// command of the latest version are there to copy. The families a template may name (the
// account's fonts, the bundled ones) are listed beside the code, each one click from the cursor;
// the preview's warnings (X-Template-Warnings: a font-family naming nothing the server has, drawn
// in Inter) are shown under it, and beside it what drawing the template costs (X-Template-Cost:
// the paint estimate, "about N of 500 units").
//
// The preview goes through /dashboard/api/account-templates/preview: not counted toward the
// quota, rate limited with the key's window. Each answer carries the number of the edit it was
// asked for, and only an answer newer than the one shown replaces it.
//
// Unsaved edits are never dropped without asking: leaving the editor (a link, Back or Forward,
// signing out: leaving.js) and restoring a version over them ask first; closing or reloading the
// tab asks the browser's way (beforeunload).
import { ApiFailure, call } from "./api.js";
import { askToConfirm, dateTimeFormat, fmt, h, setMain } from "./dom.js";
import { onLeavingPage } from "./leaving.js";
import { foldUnchanged, lineDiff } from "./line-diff.js";
import { state } from "./state.js";
import { createFieldRows, createVariableRows, labelled } from "./template-rows.js";

const PREVIEW_DEBOUNCE_MS = 300;
const SIZES = [
  { label: "1200 × 630", width: 1200, height: 630, hint: "Open Graph, most sites" },
  { label: "1200 × 675", width: 1200, height: 675, hint: "X (Twitter) large card" },
  { label: "1080 × 1080", width: 1080, height: 1080, hint: "Square" },
  { label: "1000 × 1500", width: 1000, height: 1500, hint: "Pinterest, portrait" },
];
const THEMES = ["dark", "light"];

/** The editor's preferences that outlive one visit (size and theme of the preview). */
const prefs = (state.templateEditor ??= { size: 0, theme: "dark" });

// The code pane is large (CodeMirror); it is loaded only when the editor opens.
let codeEditorModule = null;
const loadCodeEditor = () => (codeEditorModule ??= import("./code-editor.js"));

/** A definition as text to diff: its HTML, then everything else as indented JSON (keys sorted, so only values differ). */
const definitionText = ({ html, id: _id, ...rest }) =>
  `${html}\n\n── name, description, fields, theme variables, canvas, sample ──\n${JSON.stringify(sortedKeys(rest), null, 2)}`;
const sortedKeys = (value) =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : value && typeof value === "object"
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, sortedKeys(value[key])]),
        )
      : value;

const shellQuote = (text) => `'${text.replace(/'/g, `'\\''`)}'`;

export async function renderTemplateEditor(current, id) {
  const path = `/account-templates/${encodeURIComponent(id)}`;
  const [saved, versions, keys, fontList, { createCodeEditor, createCodeViewer }] = await Promise.all([
    call("GET", path),
    call("GET", `${path}/versions`),
    call("GET", "/signing-keys"),
    call("GET", "/fonts"),
    loadCodeEditor(),
  ]);
  if (!current()) return;

  // ------------------------------------------------------------------------------------------
  // The draft: what the form holds. Rows keep their own ids so a field's inputs survive
  // re-rendering of the list around them.
  let latest = saved;
  let usageAsked = 0; // number of the newest signed-URL request
  let rowKey = 0;
  const draft = {
    name: saved.name,
    description: saved.description,
    width: saved.width,
    height: saved.height,
    sizes: sizesText(saved.sizes),
    fields: [],
    vars: [],
  };
  const loadDraft = (view) => {
    draft.name = view.name;
    draft.description = view.description;
    draft.width = view.width;
    draft.height = view.height;
    draft.sizes = sizesText(view.sizes);
    draft.fields = view.fields.map((f) => ({ key: `saved-${++rowKey}`, ...f, sample: view.sample?.[f.name] ?? "" }));
    const names = [...new Set([...Object.keys(view.themes?.dark || {}), ...Object.keys(view.themes?.light || {})])];
    draft.vars = names.map((name) => ({ key: `saved-${++rowKey}`, name, dark: view.themes?.dark?.[name] ?? "", light: view.themes?.light?.[name] ?? "" }));
  };
  loadDraft(saved);

  const definition = () => {
    const themes = {};
    for (const theme of THEMES) {
      const set = {};
      for (const v of draft.vars) if (v.name.trim() && v[theme] !== "") set[v.name.trim()] = v[theme];
      if (Object.keys(set).length > 0) themes[theme] = set;
    }
    const sample = {};
    const fields = draft.fields.map((f) => {
      const out = { name: f.name.trim(), type: f.type, required: Boolean(f.required) };
      if (f.max_length !== undefined && f.max_length !== "" && f.max_length !== null) out.max_length = Number(f.max_length);
      if (f.description) out.description = f.description;
      if (f.sample !== "") sample[out.name] = f.sample;
      return out;
    });
    const sizes = parseSizes(draft.sizes);
    return {
      id,
      name: draft.name,
      description: draft.description,
      html: code.getValue(),
      fields,
      themes,
      width: Number(draft.width),
      height: Number(draft.height),
      ...(sizes === undefined ? {} : { sizes }),
      sample,
    };
  };

  // ------------------------------------------------------------------------------------------
  // Layout

  const heading = h("h1", null, saved.name || saved.id);
  const subtitle = h("p.muted.template-meta");
  const dirtyNote = h("span.pill.pill-warn", { hidden: true }, "Unsaved changes");
  const saveButton = h("button.button.primary", { type: "submit" }, "Save as new version");
  const saveStatus = h("p.form-status", { role: "status", "aria-live": "polite" });
  const problemsBox = h("div.problems", { hidden: true }, h("h3", null, "Problems"), h("ul#template-problems"));
  const problemsList = problemsBox.querySelector("ul");

  const nameInput = h("input#template-name", { type: "text", maxlength: 100, autocomplete: "off", value: draft.name, dataset: { problem: "name" } });
  const descriptionInput = h("input#template-description", {
    type: "text",
    maxlength: 300,
    autocomplete: "off",
    value: draft.description,
    dataset: { problem: "description" },
  });
  const widthInput = h("input#template-width", {
    type: "number",
    min: 200,
    max: 2400,
    step: 1,
    inputmode: "numeric",
    value: draft.width,
    dataset: { problem: "width" },
  });
  const heightInput = h("input#template-height", {
    type: "number",
    min: 200,
    max: 2400,
    step: 1,
    inputmode: "numeric",
    value: draft.height,
    dataset: { problem: "height" },
  });
  nameInput.addEventListener("input", () => edited(() => (draft.name = nameInput.value)));
  descriptionInput.addEventListener("input", () => edited(() => (draft.description = descriptionInput.value)));
  widthInput.addEventListener("input", () => edited(() => (draft.width = widthInput.value)));
  heightInput.addEventListener("input", () => edited(() => (draft.height = heightInput.value)));
  const sizesInput = h("input#template-sizes", {
    type: "text",
    autocomplete: "off",
    spellcheck: false,
    value: draft.sizes,
    placeholder: "og 1200x630, square 1080x1080, story 1080x1920",
    "aria-describedby": "template-sizes-hint",
    dataset: { problem: "sizes" },
  });
  sizesInput.addEventListener("input", () => edited(() => (draft.sizes = sizesInput.value)));

  const codeHost = h("div.code-host");
  const codeHint = h(
    "p.hint#template-html-hint",
    null,
    "HTML with inline styles. {{name}} puts a field's value; {{#name}}…{{/name}} keeps its content only when the field has a value, {{^name}}…{{/name}} only when it has none; var(--name) takes a theme variable. Tab indents; press Escape, then Tab, to leave the editor; Ctrl+S (⌘S) saves.",
  );
  const styleNonce = document.querySelector('meta[name="style-nonce"]')?.getAttribute("content") || undefined;
  const code = createCodeEditor({
    parent: codeHost,
    doc: saved.html,
    label: "Template HTML",
    describedBy: "template-html-hint",
    styleNonce,
    onChange: () => edited(),
    onSave: () => form.requestSubmit(),
  });

  // --- Fonts: the families font-family may name, each put at the cursor by a click ------------
  const families = familiesOf(fontList.data);
  const insertFamily = (name) => {
    code.view.dispatch(code.view.state.replaceSelection(name));
    code.focus();
  };
  const familyItem = (family) => {
    const button = h("button.button.small.font-choice", { type: "button", "aria-label": `Insert ${family.name} at the cursor` }, family.name);
    button.addEventListener("click", () => insertFamily(family.name));
    return h("li", null, button, " ", h("span.muted.small", null, family.note));
  };
  const fontsBox = h(
    "fieldset.stack#template-fonts",
    null,
    h("legend", null, "Fonts"),
    h("p.hint", null, "Families font-family can name (Tailwind: font-[Brand_Sans]). Select one to put its name at the cursor in the HTML."),
    families.own.length ? h("ul.font-choices", { "aria-label": "Your fonts" }, families.own.map(familyItem)) : h("p.small", null, "No fonts of your own yet."),
    h("ul.font-choices", { "aria-label": "Bundled fonts" }, families.bundled.map(familyItem)),
    h("p.hint", null, "Upload your own on the ", h("a", { href: "#/fonts" }, "Fonts page"), "."),
  );

  let rowSeq = 0;
  const nextKey = () => ++rowSeq;
  const fieldRows = createFieldRows({ draft, nextKey, edited: (apply) => edited(apply) });
  const variableRows = createVariableRows({ draft, nextKey, edited: (apply) => edited(apply) });

  const form = h(
    "form#template-form.stack",
    { novalidate: true },
    h("div.row", null, labelled("Template name", nameInput), labelled("Template description", descriptionInput)),
    h("div.field", null, h("label#template-html-label", { for: "template-html" }, "HTML"), codeHost, codeHint),
    problemsBox,
    fontsBox,
    h(
      "fieldset.stack",
      null,
      h("legend", null, "Fields and sample values"),
      h("p.hint", null, "Each field is a value a request sends; open one to change it. Sample values fill the preview and the signed URL below."),
      fieldRows.box,
      fieldRows.add,
    ),
    h(
      "fieldset.stack",
      null,
      h("legend", null, "Theme variables"),
      h("p.hint", null, "var(--name) in a style takes the value of the requested theme."),
      variableRows.box,
      variableRows.add,
    ),
    h(
      "fieldset",
      null,
      h("legend", null, "Design canvas"),
      h("div.row", null, labelled("Canvas width (px)", widthInput), labelled("Canvas height (px)", heightInput)),
      h("p.hint", null, "The size the HTML is laid out at; other sizes scale it."),
    ),
    h(
      "fieldset",
      null,
      h("legend", null, "Size set"),
      labelled("Sizes", sizesInput),
      h(
        "p.hint#template-sizes-hint",
        null,
        'Up to 8 named sizes, "name WIDTHxHEIGHT" separated by commas; size: "square" in a request draws that one. Each is previewed beside the others.',
      ),
    ),
    h("div.actions.save-row", null, saveButton, dirtyNote),
    saveStatus,
  );
  // The label's `for` points at CodeMirror's content element, which carries the same name.
  code.view.contentDOM.id = "template-html";

  // --- Preview pane --------------------------------------------------------------------------
  const image = h("img#template-preview", { alt: "Preview of the template" });
  const frame = h("div.frame", null, image);
  // Room for the first picture before it arrives (each answer sets the ratio of its own size).
  frame.style.aspectRatio = `${SIZES[prefs.size].width} / ${SIZES[prefs.size].height}`;
  const previewStatus = h("p.preview-status", { role: "status", "aria-live": "polite" });
  const previewCost = h("p.preview-cost#template-cost", {
    hidden: true,
    title:
      "What drawing this template costs at 2400×2400: a unit is one megapixel painted once; shadows, filters, gradients, clips and glyphs cost more. Over the budget, saving is refused.",
  });
  const sizeSet = h("div.size-set", { hidden: true, dataset: { testid: "size-set" } });
  const sizeSetTitle = h("h3", { hidden: true }, "Every size");
  const warningsList = h("ul#template-warnings");
  const warningsBox = h("div.warnings", { role: "status", "aria-live": "polite", hidden: true }, h("h3", null, "Warnings"), warningsList);
  const viewing = h("div.notice.viewing", { hidden: true });
  // A version being viewed: its HTML read-only beside what changed since (filled by viewVersion).
  const versionView = h("section.card.version-view#version-view", { hidden: true, "aria-labelledby": "version-view-title" });
  const sizeGroup = h(
    "fieldset.segmented",
    null,
    h("legend", null, "Size"),
    SIZES.map((size, index) => {
      const radio = h(`input#size-${index}`, { type: "radio", name: "preview-size", value: String(index), checked: index === prefs.size });
      radio.addEventListener("change", () => {
        prefs.size = index;
        schedule(0);
      });
      return h("span.segment", null, radio, h("label", { for: `size-${index}`, title: size.hint }, size.label));
    }),
  );
  const themeGroup = h(
    "fieldset.segmented",
    null,
    h("legend", null, "Theme"),
    THEMES.map((theme) => {
      const radio = h(`input#theme-${theme}`, { type: "radio", name: "preview-theme", value: theme, checked: theme === prefs.theme });
      radio.addEventListener("change", () => {
        prefs.theme = theme;
        schedule(0);
        updateUsage();
      });
      return h("span.segment", null, radio, h("label", { for: `theme-${theme}` }, theme === "dark" ? "Dark" : "Light"));
    }),
  );

  // --- Versions ------------------------------------------------------------------------------
  const versionList = h("ol#version-list.versions", { reversed: true });
  const renderVersions = (list) => {
    versionList.replaceChildren(
      ...list
        .slice()
        .sort((a, b) => b.version - a.version)
        .map((v) => {
          const view = h("button.button.small", { type: "button", "aria-label": `View version ${v.version}` }, "View");
          const restore = h(
            "button.button.small",
            { type: "button", "aria-label": `Restore version ${v.version}`, disabled: v.version === latest.version },
            "Restore",
          );
          view.addEventListener("click", () => viewVersion(v.version));
          restore.addEventListener("click", () => restoreVersion(v.version, restore));
          return h(
            "li.version",
            { value: v.version, dataset: { version: String(v.version) } },
            h(
              "span.version-label",
              null,
              h("strong", null, `Version ${v.version}`),
              v.version === latest.version ? " (latest)" : "",
              h("br"),
              h("span.muted.small", null, dateTimeFormat.format(new Date(v.created_at))),
            ),
            h("span.actions", null, view, restore),
          );
        }),
    );
  };

  // --- Using it: signed URL and curl ----------------------------------------------------------
  const keySelect = h(
    "select#template-signing-key",
    null,
    keys.data.map((key) => h("option", { value: key.id }, key.id)),
  );
  const urlOut = h("input#template-signed-url.mono", { type: "text", readonly: true, spellcheck: "false" });
  const copyUrl = h("button.button.small", { type: "button" }, "Copy URL");
  const curlOut = h("textarea#template-curl.mono", { readonly: true, rows: 6, spellcheck: "false", wrap: "off" });
  const copyCurl = h("button.button.small", { type: "button" }, "Copy curl");
  const usageStatus = h("p.form-error", { role: "alert", hidden: true });
  copyUrl.addEventListener("click", () => copy(urlOut, copyUrl, "Copy URL"));
  copyCurl.addEventListener("click", () => copy(curlOut, copyCurl, "Copy curl"));
  keySelect.addEventListener("change", () => updateUsage());
  const urlBlock = keys.data.length
    ? h(
        "div.stack",
        null,
        labelled("Signing key", keySelect),
        h(
          "div.field",
          null,
          h("div.curl-head", null, h("label", { for: "template-signed-url" }, "Signed image URL"), copyUrl),
          urlOut,
          h("p.hint", null, "Pinned to the latest version (v), with the sample values and the preview's theme."),
        ),
      )
    : h(
        "p.hint",
        null,
        "No signing key yet: create one on the ",
        h("a", { href: "#/signing-keys" }, "Signing keys page"),
        ' to get a public image URL for <meta property="og:image">.',
      );

  const usage = h(
    "section.card.stack",
    { "aria-labelledby": "tpl-use-title" },
    h("h2#tpl-use-title", null, "Use it"),
    urlBlock,
    h(
      "div.field",
      null,
      h("div.curl-head", null, h("label", { for: "template-curl" }, "curl command"), copyCurl),
      curlOut,
      h("p.hint", null, "Set OGSMITH_API_KEY in your shell; the dashboard never shows your key."),
    ),
    usageStatus,
  );

  setMain(
    h("p.breadcrumb", null, h("a", { href: "#/templates" }, "Templates"), " / ", h("span.mono", null, id)),
    heading,
    subtitle,
    versionView,
    h(
      "div.studio",
      null,
      h("section.card.studio-edit", { "aria-labelledby": "tpl-edit-title" }, h("h2#tpl-edit-title", null, "Design"), form),
      h(
        "div.studio-side",
        null,
        h(
          "section.card.studio-preview",
          { "aria-labelledby": "tpl-preview-title" },
          h("h2#tpl-preview-title", null, "Preview"),
          h("div.preview-controls", null, sizeGroup, themeGroup),
          viewing,
          frame,
          previewStatus,
          previewCost,
          sizeSetTitle,
          sizeSet,
          warningsBox,
        ),
        h("section.card.stack", { "aria-labelledby": "tpl-versions-title" }, h("h2#tpl-versions-title", null, "Versions"), versionList),
        usage,
      ),
    ),
  );
  document.querySelector("#main").classList.add("wide");
  // The code pane was built before it was in the page: measure its wrapped lines now that it has
  // a width, so the line numbers sit beside the lines they number.
  code.view.requestMeasure();
  fieldRows.render();
  variableRows.render();
  renderVersions(versions.data);
  showMeta();
  updateUsage();

  // ------------------------------------------------------------------------------------------
  // Editing, preview and problems

  // Every edit is numbered; the draft is saved up to the edit the last save or restore sent, so
  // an edit made while a save is on its way stays unsaved.
  let edits = 0;
  let savedUpTo = 0;
  const unsaved = () => edits !== savedUpTo;
  // Closing or reloading the tab with unsaved changes asks first.
  const warnBeforeLeaving = (event) => {
    if (!unsaved()) return;
    event.preventDefault();
    event.returnValue = "";
  };
  window.addEventListener("beforeunload", warnBeforeLeaving);
  function edited(apply) {
    if (apply) apply();
    edits++;
    dirtyNote.hidden = false;
    saveStatus.textContent = "";
    if (viewingVersion === null) schedule();
    else showChanges();
  }

  let timer = null;
  let asked = 0; // number of the newest preview asked for
  let shown = 0; // number of the preview on screen
  let inflight = null;
  let objectUrl = null;
  let viewingVersion = null;
  const schedule = (delay = PREVIEW_DEBOUNCE_MS) => {
    clearTimeout(timer);
    timer = setTimeout(() => preview(viewingVersion === null ? definition() : viewedDefinition), delay);
  };
  let viewedDefinition = null;

  async function preview(def) {
    if (!image.isConnected) return;
    const mine = ++asked;
    inflight?.abort();
    const controller = new AbortController();
    inflight = controller;
    const size = SIZES[prefs.size];
    previewStatus.className = "preview-status";
    previewStatus.textContent = "Rendering…";
    try {
      const res = await call(
        "POST",
        "/account-templates/preview",
        { template: def, theme: prefs.theme, width: size.width, height: size.height },
        { raw: true, signal: controller.signal },
      );
      const blob = await res.blob();
      // An older answer never replaces a newer one.
      if (mine !== asked || mine < shown) return;
      shown = mine;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      objectUrl = URL.createObjectURL(blob);
      image.src = objectUrl;
      image.dataset.sequence = String(mine);
      frame.style.aspectRatio = `${size.width} / ${size.height}`;
      image.alt = `Preview of ${def.name || id} at ${size.label}, ${prefs.theme} theme`;
      previewStatus.textContent = `Rendered in ${res.headers.get("x-generation-time-ms") || "?"} ms · ${size.label} · ${prefs.theme} · not counted toward your quota`;
      showWarnings(res.headers.get("x-template-warnings"));
      showCost(res.headers.get("x-template-cost"));
      if (viewingVersion === null) showProblems([]);
      void previewSizeSet(def, mine);
    } catch (failure) {
      if (failure?.name === "AbortError") return;
      if (mine !== asked) return;
      previewStatus.className = "preview-status bad";
      if (failure instanceof ApiFailure && failure.code === "RATE_LIMIT_EXCEEDED") {
        const wait = Math.max(1, failure.retryAfter || 1);
        previewStatus.textContent = `Rate limited (${fmt(state.me.limits.requests_per_second)} per second, shared with your API calls). Retrying in ${wait} s…`;
        schedule(wait * 1000);
      } else if (failure instanceof ApiFailure && failure.code === "VALIDATION_ERROR") {
        previewStatus.textContent = "The preview shows the last version that rendered. Fix the problems listed under the editor.";
        if (viewingVersion === null) showProblems(failure.details);
      } else {
        previewStatus.textContent = `${failure.message}${failure.code ? ` (${failure.code})` : ""}`;
      }
    } finally {
      if (inflight === controller) inflight = null;
    }
  }

  /**
   * The template's size set side by side: one preview per named size, asked one after another
   * (they share the key's rate limit), each dropped when a newer preview was asked for meanwhile.
   */
  const sizeUrls = [];
  async function previewSizeSet(def, mine) {
    const sizes = def.sizes && typeof def.sizes === "object" ? Object.entries(def.sizes) : [];
    sizeSet.hidden = sizeSetTitle.hidden = sizes.length === 0;
    if (sizes.length === 0) return sizeSet.replaceChildren();
    const figures = sizes.map(([name, size]) => {
      const img = h("img", { alt: `Preview of the ${name} size, ${size.width} × ${size.height}` });
      const box = h("div.size-frame", null, img);
      box.style.aspectRatio = `${size.width} / ${size.height}`;
      return {
        name,
        size,
        img,
        figure: h("figure.size-preview", { dataset: { size: name } }, box, h("figcaption", null, h("strong", null, name), ` ${size.width} × ${size.height}`)),
      };
    });
    sizeSet.replaceChildren(...figures.map((f) => f.figure));
    for (const url of sizeUrls.splice(0)) URL.revokeObjectURL(url);
    for (const { size, img } of figures) {
      for (;;) {
        if (mine !== asked || !img.isConnected) return;
        try {
          const res = await call(
            "POST",
            "/account-templates/preview",
            { template: def, theme: prefs.theme, width: size.width, height: size.height },
            { raw: true },
          );
          const url = URL.createObjectURL(await res.blob());
          sizeUrls.push(url);
          img.src = url;
          break;
        } catch (failure) {
          if (failure instanceof ApiFailure && failure.code === "RATE_LIMIT_EXCEEDED") {
            await new Promise((resolve) => setTimeout(resolve, Math.max(1, failure.retryAfter || 1) * 1000));
            continue;
          }
          return;
        }
      }
    }
  }

  /** The paint estimate of the preview on screen (`units=N; budget=M`), as "about N of M units". */
  function showCost(header) {
    const units = /units=(\d+)/.exec(header || "")?.[1];
    const budget = /budget=(\d+)/.exec(header || "")?.[1];
    previewCost.hidden = units === undefined || budget === undefined;
    if (previewCost.hidden) return;
    previewCost.textContent = `Drawing cost: about ${fmt(Number(units))} of ${fmt(Number(budget))} units`;
    previewCost.classList.toggle("near-budget", Number(units) > 0.8 * Number(budget));
  }

  /** The warnings of the preview on screen (a JSON array of messages, or none), as text. */
  function showWarnings(header) {
    let messages = [];
    try {
      messages = header ? JSON.parse(header) : [];
    } catch {
      messages = [header];
    }
    if (!Array.isArray(messages)) messages = [String(messages)];
    warningsList.replaceChildren(...messages.map((message) => h("li", null, String(message))));
    warningsBox.hidden = messages.length === 0;
  }

  /** Problems at their line in the code pane, and every problem as text under it. */
  function showProblems(details) {
    const html = details.filter((d) => d.field === "html" && d.line);
    code.setProblems(html.map((d) => ({ line: d.line, column: d.column, message: d.message })));
    for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    problemsList.replaceChildren(
      ...details.map((d) => {
        const where = d.field === "html" && d.line ? `HTML line ${d.line}${d.column ? `, column ${d.column}` : ""}` : d.field || "template";
        // A value problem (`values.<field>`: the preview draws the sample values) points at the field's sample input.
        const name = d.field?.startsWith("values.") ? `sample.${d.field.slice("values.".length)}` : d.field;
        const target = name && name !== "html" ? form.querySelector(`[data-problem="${CSS.escape(name)}"]`) : null;
        if (target) {
          target.setAttribute("aria-invalid", "true");
          // A field's inputs sit in its folded row: unfold the row the problem is in.
          const row = target.closest("details");
          if (row) row.open = true;
        }
        const item = h("li", null, h("strong", null, `${where}: `), d.message);
        if (d.field === "html" && d.line) {
          const go = h("button.button.small.subtle", { type: "button" }, "Go to line");
          go.addEventListener("click", () => {
            const line = code.view.state.doc.line(Math.min(d.line, code.view.state.doc.lines));
            code.view.dispatch({ selection: { anchor: Math.min(line.from + Math.max(0, (d.column || 1) - 1), line.to) }, scrollIntoView: true });
            code.focus();
          });
          item.append(" ", go);
        } else if (target) {
          const go = h("button.button.small.subtle", { type: "button" }, "Go to field");
          go.addEventListener("click", () => target.focus());
          item.append(" ", go);
        }
        return item;
      }),
    );
    problemsBox.hidden = details.length === 0;
    saveButton.setAttribute("aria-describedby", details.length ? "template-problems" : "");
  }

  // ------------------------------------------------------------------------------------------
  // Versions

  function showMeta() {
    heading.textContent = latest.name || latest.id;
    subtitle.replaceChildren(h("span.mono", null, latest.id), ` · version ${latest.version} · saved ${dateTimeFormat.format(new Date(latest.updated_at))} UTC`);
    document.title = `${latest.name || latest.id} · Templates · ogsmith dashboard`;
  }

  /** `upTo`: the number of the last edit the new version holds. */
  async function afterNewVersion(view, message, upTo) {
    latest = view;
    savedUpTo = upTo;
    dirtyNote.hidden = !unsaved();
    showMeta();
    renderVersions((await call("GET", `${path}/versions`)).data);
    saveStatus.textContent = message;
    updateUsage();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    saveButton.disabled = true;
    saveStatus.textContent = "Saving…";
    const upTo = edits;
    try {
      const view = await call("PUT", path, definition());
      showProblems([]);
      await afterNewVersion(view, `Saved as version ${view.version}.`, upTo);
    } catch (failure) {
      saveStatus.textContent = failure.code === "VALIDATION_ERROR" ? "Not saved: fix the problems listed under the editor." : `Not saved: ${failure.message}`;
      if (failure.code === "VALIDATION_ERROR") showProblems(failure.details);
    } finally {
      saveButton.disabled = false;
    }
  });

  let versionCode = null; // the read-only code pane of the version being viewed
  let diffBox = null;
  let diffCaption = null;

  async function viewVersion(version) {
    const view = await call("GET", `${path}/versions/${version}`);
    viewingVersion = version;
    viewedDefinition = definitionOfView(view);
    const back = h("button.button.small", { type: "button" }, "Back to the editor");
    back.addEventListener("click", closeVersion);
    viewing.replaceChildren(
      h("span", null, `Showing version ${version} (saved ${dateTimeFormat.format(new Date(view.created_at))} UTC), not your draft.`),
      " ",
      back,
    );
    viewing.hidden = false;

    // Its HTML, read-only, beside a line diff against what the editor holds now.
    versionCode?.destroy();
    const codeBox = h("div.code-host.version-code");
    diffBox = h("div.diff#version-diff", { role: "region", tabindex: "0", "aria-labelledby": "version-diff-title" });
    diffCaption = h("p.hint#version-diff-caption");
    const close = h("button.button.small", { type: "button" }, "Close");
    close.addEventListener("click", closeVersion);
    versionView.replaceChildren(
      h("div.version-view-head", null, h("h2#version-view-title", null, `Version ${version}`), close),
      h(
        "div.version-panes",
        null,
        h("div.version-pane", null, h("h3", null, `Its HTML (read-only)`), codeBox),
        h("div.version-pane", null, h("h3#version-diff-title", null, `Changes from version ${version} to the editor`), diffCaption, diffBox),
      ),
    );
    versionView.hidden = false;
    versionCode = createCodeViewer({ parent: codeBox, doc: view.html, label: `Version ${version} HTML, read-only`, styleNonce });
    // The pane opens at the version's first line that the editor no longer has.
    const firstChange = showChanges();
    if (firstChange?.before) {
      versionCode.showLine(firstChange.before);
      // Again once the pane has measured its wrapped lines, so the line lands where it was put.
      const viewer = versionCode;
      requestAnimationFrame(() => requestAnimationFrame(() => viewer === versionCode && viewer.showLine(firstChange.before)));
    }
    schedule(0);
    back.focus();
  }

  function closeVersion() {
    viewingVersion = null;
    viewing.hidden = true;
    versionView.hidden = true;
    versionCode?.destroy();
    versionCode = null;
    schedule(0);
    code.focus();
  }

  /** The diff of the viewed version against the editor: its HTML, then its other settings as JSON. Returns the first changed line. */
  function showChanges() {
    if (viewingVersion === null || !diffBox) return undefined;
    const lines = lineDiff(definitionText(viewedDefinition), definitionText(definition()));
    const changed = lines.filter((line) => line.kind !== "same");
    const removed = changed.filter((line) => line.kind === "del").length;
    diffCaption.textContent =
      changed.length === 0
        ? `No differences: the editor holds version ${viewingVersion} as it was saved.`
        : `${removed} line${removed === 1 ? "" : "s"} removed, ${changed.length - removed} added (− version ${viewingVersion}, + the editor${unsaved() ? ", unsaved changes included" : `: version ${latest.version}`}).`;
    diffBox.replaceChildren(
      ...foldUnchanged(lines).map((line) => {
        if (line.kind === "skip") return h("div.diff-line.diff-skip", null, `⋯ ${fmt(line.count)} unchanged line${line.count === 1 ? "" : "s"}`);
        const number = line.kind === "add" ? line.after : line.before;
        const sign = line.kind === "add" ? "+" : line.kind === "del" ? "−" : " ";
        const tag = line.kind === "add" ? "ins" : line.kind === "del" ? "del" : "span";
        return h(
          `${tag}.diff-line.diff-${line.kind}`,
          null,
          h("span.diff-number", { "aria-hidden": "true" }, String(number)),
          h("span.diff-sign", null, sign),
          h("span.diff-text", null, line.text),
        );
      }),
    );
    return changed[0];
  }

  // Restoring replaces the draft: with unsaved edits in it, the user says so first.
  async function restoreVersion(version, button) {
    const discarded = unsaved() ? " Your unsaved changes were discarded." : "";
    if (
      discarded &&
      !(await askToConfirm({
        title: `Restore version ${version}?`,
        question: "Restoring replaces what is in the editor, and your changes are not saved. Save them first to keep them as a version.",
        yes: `Discard changes and restore version ${version}`,
        no: "Keep editing",
      }))
    )
      return;
    button.disabled = true;
    try {
      const old = await call("GET", `${path}/versions/${version}`);
      const view = await call("PUT", path, { ...definitionOfView(old), id });
      loadDraft(view);
      nameInput.value = draft.name;
      descriptionInput.value = draft.description;
      widthInput.value = draft.width;
      heightInput.value = draft.height;
      sizesInput.value = draft.sizes;
      code.setValue(view.html);
      fieldRows.render();
      variableRows.render();
      viewingVersion = null;
      viewing.hidden = true;
      versionView.hidden = true;
      versionCode?.destroy();
      versionCode = null;
      // Setting the code above counted as an edit: the draft is this version now, up to there.
      await afterNewVersion(view, `Restored version ${version} as version ${view.version}.${discarded}`, edits);
      schedule(0);
    } catch (failure) {
      button.disabled = false;
      saveStatus.textContent = `Not restored: ${failure.message}`;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Signed URL and curl for the latest saved version

  async function updateUsage() {
    const values = latest.sample || {};
    const body = { template: id, template_version: latest.version, theme: prefs.theme, ...values };
    curlOut.value = [
      `curl --fail-with-body -X POST ${shellQuote(location.origin + "/api/generate")} \\`,
      `  -H "X-API-Key: $OGSMITH_API_KEY" \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d ${shellQuote(JSON.stringify(body))} \\`,
      `  -o ${shellQuote(`${id}.png`)}`,
    ].join("\n");
    if (!keys.data.length) return;
    usageStatus.hidden = true;
    // As for previews: only the answer to the latest request is shown.
    const mine = ++usageAsked;
    try {
      const { url } = await call("POST", "/image-urls", { ...body, signing_key_id: keySelect.value });
      if (mine !== usageAsked) return;
      urlOut.value = url;
    } catch (failure) {
      if (mine !== usageAsked) return;
      urlOut.value = "";
      usageStatus.textContent = `No signed URL: ${failure.message}`;
      usageStatus.hidden = false;
    }
  }

  onLeavingPage({
    unsaved,
    question: "Your changes to this template are not saved. Save them first to keep them as a new version.",
    left: () => {
      document.querySelector("#main").classList.remove("wide");
      window.removeEventListener("beforeunload", warnBeforeLeaving);
      clearTimeout(timer);
      inflight?.abort();
      code.destroy();
      versionCode?.destroy();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    },
  });

  schedule(0);
}

/**
 * The families a template may name, from GET /fonts: the account's (one entry a family, its faces
 * as a note) and the bundled ones with the generic name that draws them.
 */
function familiesOf(fonts) {
  const own = new Map();
  for (const font of fonts) {
    if (font.source !== "account") continue;
    const key = font.family.toLowerCase();
    if (!own.has(key)) own.set(key, { name: font.family, faces: [] });
    own.get(key).faces.push(`${font.weight}${font.style === "italic" ? " italic" : ""}`);
  }
  return {
    own: [...own.values()].map((f) => ({ name: f.name, note: f.faces.join(", ") })),
    bundled: fonts.filter((f) => f.source === "builtin").map((f) => ({ name: f.family, note: `bundled · ${f.generic}` })),
  };
}

function definitionOfView(view) {
  const { id, name, description, html, fields, themes, width, height, sizes, sample } = view;
  return { id, name, description, html, fields, themes, width, height, ...(sizes ? { sizes } : {}), sample };
}

async function copy(control, button, label) {
  try {
    await navigator.clipboard.writeText(control.value);
  } catch {
    control.select();
    document.execCommand("copy");
  }
  button.textContent = "Copied";
  setTimeout(() => (button.textContent = label), 1500);
}

/** A size set as the editor's text: "og 1200x630, square 1080x1080". */
function sizesText(sizes) {
  return Object.entries(sizes || {})
    .map(([name, size]) => `${name} ${size.width}x${size.height}`)
    .join(", ");
}

/**
 * The text back into `{name: {width, height}}`; undefined when empty. A piece that does not read
 * as "name WIDTHxHEIGHT" is sent as it is written, so the server's answer names it.
 */
function parseSizes(text) {
  const pieces = String(text || "")
    .split(",")
    .map((piece) => piece.trim())
    .filter(Boolean);
  if (pieces.length === 0) return undefined;
  const sizes = {};
  for (const piece of pieces) {
    const match = /^(\S+)\s+(\d+)\s*[x×]\s*(\d+)$/.exec(piece);
    if (match) sizes[match[1]] = { width: Number(match[2]), height: Number(match[3]) };
    else sizes[piece.split(/\s+/)[0]] = piece;
  }
  return sizes;
}
