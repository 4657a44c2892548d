// The Fonts page: the account's own font files (each with a sample line drawn in its face by the
// server: GET /dashboard/api/fonts/<id>/sample, an image, so the page needs no @font-face), upload
// (file, optional family, weight and style) and delete after a confirmation; the bundled families
// beside them. Limits come from the server's rules; errors are shown as the API words them.
import { call, clearProblems, field, showProblems } from "./api.js";
import { $, askToConfirm, dateTimeFormat, fmt, h, setMain } from "./dom.js";
import { rules } from "./state.js";

const WEIGHTS = [
  [100, "Thin"],
  [200, "Extra light"],
  [300, "Light"],
  [400, "Regular"],
  [500, "Medium"],
  [600, "Semibold"],
  [700, "Bold"],
  [800, "Extra bold"],
  [900, "Black"],
];
const UPLOAD_FIELDS = ["file", "family", "weight", "style"];

const MiB = 1024 * 1024;
export function formatBytes(bytes) {
  if (bytes < 1024) return `${fmt(bytes)} B`;
  // Whole numbers without a decimal: the limits read "5 MiB", as the API words them.
  const [unit, size] = bytes < MiB ? ["KiB", bytes / 1024] : ["MiB", bytes / MiB];
  return `${Number.isInteger(size) ? size : size.toFixed(1)} ${unit}`;
}

/** "Brand Sans 700 italic": how the page names one face. */
export const faceLabel = (font) => `${font.family} ${font.weight}${font.style === "italic" ? " italic" : ""}`;

export async function renderFonts(current, notice) {
  const [list, serverRules] = await Promise.all([call("GET", "/fonts"), rules()]);
  if (!current()) return;
  const limits = serverRules.fonts;
  const own = list.data.filter((f) => f.source === "account");
  const builtin = list.data.filter((f) => f.source === "builtin");
  const used = own.reduce((sum, f) => sum + f.bytes, 0);
  const rerender = (message) => renderFonts(current, message);

  const status = h("p.notice.success", { role: "status", hidden: !notice }, notice || "");
  const listError = h("p.form-error", { role: "alert", hidden: true });

  // --- The account's fonts ---------------------------------------------------------------------
  const itemFor = (font) => {
    const label = faceLabel(font);
    const remove = h("button.button.small.danger", { type: "button", "aria-label": `Delete ${label}` }, "Delete");
    remove.addEventListener("click", async () => {
      const others = own.some((f) => f.id !== font.id && f.family.toLowerCase() === font.family.toLowerCase());
      const yes = await askToConfirm({
        title: `Delete ${label}?`,
        question: others
          ? `Templates that name ${font.family} draw with its other faces from then on.`
          : `Templates that name ${font.family} are refused (400) from then on, until a font of that family is uploaded again.`,
        yes: `Delete ${label}`,
        no: "Keep it",
      });
      if (!yes) return;
      remove.disabled = true;
      try {
        await call("DELETE", `/fonts/${encodeURIComponent(font.id)}`);
        await rerender(`Deleted ${label}.`);
      } catch (failure) {
        remove.disabled = false;
        listError.textContent = failure.message;
        listError.hidden = false;
      }
    });
    return h(
      "li.font-item",
      { dataset: { fontId: font.id } },
      // The sample says in pictures what the text beside it says: its alt text names the face.
      h("img.font-sample", { src: `/dashboard/api/fonts/${encodeURIComponent(font.id)}/sample`, alt: `Sample of ${label}`, width: 1000, height: 200 }),
      h(
        "div.font-meta",
        null,
        h("strong.font-family-name", null, font.family),
        h(
          "span.muted.small",
          null,
          `${font.weight} · ${font.style} · ${font.format.toUpperCase()} · ${formatBytes(font.bytes)} · ${fmt(font.glyphs)} glyphs · uploaded ${dateTimeFormat.format(new Date(font.created_at))} UTC`,
        ),
      ),
      h("div.actions", null, remove),
    );
  };
  const fontList = own.length
    ? h("ul#font-list.font-list", { "aria-label": "Your fonts" }, own.map(itemFor))
    : h("p.muted", null, "No fonts of your own yet. Upload one below; until then templates draw the bundled families.");

  // --- Upload ----------------------------------------------------------------------------------
  const formats = limits.formats.map((f) => f.toUpperCase()).join(", ");
  const fileInput = h("input#font-file", {
    type: "file",
    name: "file",
    accept: [...limits.formats.map((f) => `.${f}`), ...limits.formats.map((f) => `font/${f}`)].join(","),
    required: true,
  });
  const familyInput = h("input#font-family", {
    type: "text",
    name: "family",
    maxlength: 64,
    autocomplete: "off",
    spellcheck: "false",
    placeholder: "From the file",
  });
  const weightSelect = h(
    "select#font-weight",
    { name: "weight" },
    h("option", { value: "" }, "From the file"),
    WEIGHTS.map(([value, name]) => h("option", { value: String(value) }, `${value} ${name}`)),
  );
  const styleSelect = h(
    "select#font-style",
    { name: "style" },
    h("option", { value: "" }, "From the file"),
    h("option", { value: "normal" }, "Normal"),
    h("option", { value: "italic" }, "Italic"),
  );
  const uploadButton = h("button.button.primary", { type: "submit" }, "Upload font");
  const form = h(
    "form#font-upload.stack",
    { novalidate: true },
    field("Font file", fileInput, {
      key: "file",
      hint: `${formats}; one static face per file (not a variable font), at most ${formatBytes(limits.max_file_bytes)}.`,
    }),
    field("Family", familyInput, {
      key: "family",
      hint: "Optional. The name templates use in font-family; default, the family the file names. Letters, digits, spaces, _ and -.",
    }),
    h("div.row", null, field("Weight", weightSelect, { key: "weight", hint: "Optional." }), field("Style", styleSelect, { key: "style", hint: "Optional." })),
    h("p.form-error", { role: "alert", hidden: true, dataset: { errorFor: "_form" } }),
    h("div.actions", null, uploadButton),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearProblems(form);
    const file = fileInput.files?.[0];
    const body = new FormData();
    if (file) body.set("file", file, file.name);
    if (familyInput.value.trim()) body.set("family", familyInput.value.trim());
    if (weightSelect.value) body.set("weight", weightSelect.value);
    if (styleSelect.value) body.set("style", styleSelect.value);
    uploadButton.disabled = true;
    uploadButton.textContent = "Uploading…";
    try {
      const font = await call("POST", "/fonts", body);
      const replaced = own.some((f) => f.family.toLowerCase() === font.family.toLowerCase() && f.weight === font.weight && f.style === font.style);
      await rerender(`${replaced ? "Replaced" : "Uploaded"} ${faceLabel(font)}. Name it in a template: font-family: ${font.family}.`);
    } catch (failure) {
      uploadButton.disabled = false;
      uploadButton.textContent = "Upload font";
      showProblems(form, failure, (name) => (UPLOAD_FIELDS.includes(name) ? name : null));
      // A refusal that is not about one field's value (too large, over the account's bounds) is
      // shown whole, as the API words it, above the button.
      if (failure.code !== "VALIDATION_ERROR") {
        const formError = form.querySelector("[data-error-for=_form]");
        formError.textContent = failure.message;
        formError.hidden = false;
      }
    }
  });

  // --- Bundled ---------------------------------------------------------------------------------
  const tailwind = { "sans-serif": "font-sans", serif: "font-serif", monospace: "font-mono" };
  const bundledList = h(
    "ul.bundled-fonts",
    { "aria-label": "Bundled families" },
    builtin.map((f) =>
      h(
        "li",
        null,
        h("strong", null, f.family),
        " ",
        h(
          "span.muted.small",
          null,
          `${f.generic}, ${tailwind[f.generic] || ""} · weights ${f.weights.join(", ")}${f.styles.includes("italic") ? " · italic" : ""}`,
        ),
      ),
    ),
  );

  setMain(
    h("h1", null, "Fonts"),
    h(
      "p.muted.lede",
      null,
      "Your own typefaces for your templates: upload a font, then name its family in a template's font-family (or Tailwind's font-[Brand_Sans]). Each file is one face: a family, a weight and a style.",
    ),
    status,
    h(
      "div.stack",
      null,
      h(
        "section.card.stack",
        { "aria-labelledby": "fonts-list-title" },
        h(
          "div.section-head",
          null,
          h("h2#fonts-list-title", null, "Your fonts"),
          h(
            "span.muted.small#fonts-usage",
            null,
            `${own.length} of ${limits.max_per_account} fonts · ${formatBytes(used)} of ${formatBytes(limits.max_account_bytes)}`,
          ),
        ),
        fontList,
        listError,
      ),
      h("section.card.stack", { "aria-labelledby": "fonts-upload-title" }, h("h2#fonts-upload-title", null, "Upload a font"), form),
      h(
        "section.card.stack",
        { "aria-labelledby": "fonts-bundled-title" },
        h("h2#fonts-bundled-title", null, "Bundled families"),
        h("p.hint", null, "Every template can name these, and the generic names that stand for them."),
        bundledList,
      ),
    ),
  );
  if (notice) $("#main h1")?.focus();
}
