// The template editor's code pane: CodeMirror 6 with HTML highlighting, line numbers, undo
// history, bracket matching and problems shown at their line. Bundled into one browser module
// when the server is built (see ../editor-bundle.ts), so the page loads it from this server,
// never from a CDN. Only the HTML grammar is included (no JavaScript or CSS sub-grammars):
// templates contain neither, and leaving them out keeps the bundle small.
import { EditorState } from "@codemirror/state";
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { HighlightStyle, LRLanguage, bracketMatching, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { forEachDiagnostic, lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
import { tags } from "@lezer/highlight";
import { parser } from "@lezer/html";

const html = LRLanguage.define({ name: "html", parser, languageData: { commentTokens: { block: { open: "<!--", close: "-->" } } } });

// Colours chosen for contrast (WCAG AA on the pane's background) rather than CodeMirror's defaults.
const highlight = HighlightStyle.define([
  { tag: tags.tagName, color: "#1d4ed8", fontWeight: "600" },
  { tag: tags.attributeName, color: "#9a3412" },
  { tag: tags.attributeValue, color: "#166534" },
  { tag: [tags.angleBracket, tags.definitionOperator], color: "#475569" },
  { tag: tags.comment, color: "#64748b", fontStyle: "italic" },
  { tag: tags.invalid, color: "#b91c1c" },
]);

const theme = EditorView.theme({
  "&": { fontSize: "13px", border: "1px solid var(--border, #cbd5e1)", borderRadius: "8px", backgroundColor: "#fff" },
  "&.cm-focused": { outline: "2px solid var(--focus, #2563eb)", outlineOffset: "1px" },
  ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", lineHeight: "1.5", minHeight: "320px", maxHeight: "70vh" },
  ".cm-content": { caretColor: "#0f172a" },
  ".cm-gutters": { backgroundColor: "#f8fafc", color: "#64748b", borderRight: "1px solid #e2e8f0" },
  ".cm-activeLine": { backgroundColor: "#f1f5f9" },
  ".cm-activeLineGutter": { backgroundColor: "#e2e8f0", color: "#0f172a" },
});

/**
 * Mounts an editor in `parent`. `label` names it for assistive technology; `onChange(text)` runs
 * after every edit; `onSave()` on Ctrl/Cmd-S; `styleNonce` is the page's CSP nonce for style elements. Tab indents; Escape then Tab leaves the editor (CodeMirror's own convention,
 * so the keyboard is never trapped).
 */
export function createCodeEditor({ parent, doc = "", label = "Template HTML", describedBy, styleNonce, onChange = () => {}, onSave }) {
  const contentAttributes = { "aria-label": label };
  if (describedBy) contentAttributes["aria-describedby"] = describedBy;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        lintGutter(),
        html,
        syntaxHighlighting(highlight),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of(contentAttributes),
        // Ctrl/Cmd-S saves (a new version) instead of the browser's "save page".
        onSave
          ? keymap.of([
              {
                key: "Mod-s",
                run: () => {
                  onSave();
                  return true;
                },
                preventDefault: true,
              },
            ])
          : [],
        keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap, ...lintKeymap]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
        theme,
        // The page's CSP admits style elements with this page load's nonce only.
        styleNonce ? EditorView.cspNonce.of(styleNonce) : [],
      ],
    }),
  });

  return {
    view,
    getValue: () => view.state.doc.toString(),
    /** Replaces the whole text (one undoable change). */
    setValue(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus: () => view.focus(),
    /**
     * Shows problems at their place: each `{line, column, message}` (1-based, as the API reports
     * them) becomes an underline and a gutter marker on that line. Positions past the end are
     * pinned to the last character, so a stale answer about a longer text cannot throw.
     */
    setProblems(problems) {
      const doc = view.state.doc;
      const diagnostics = problems.map((problem) => {
        const lineNumber = Math.min(Math.max(1, problem.line || 1), doc.lines);
        const line = doc.line(lineNumber);
        const from = Math.min(line.from + Math.max(0, (problem.column || 1) - 1), line.to);
        // Underline to the end of the word (or the tag) that starts there, at least one character.
        const rest = doc.sliceString(from, line.to);
        const word = /^<?\/?[^\s<>"'=]*/.exec(rest)[0].length;
        const to = Math.min(line.to, from + Math.max(1, word));
        return { from, to: Math.max(to, from), severity: "error", message: problem.message };
      });
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
    /** The problems shown now, with their 1-based lines (tests and the summary list read these). */
    problems() {
      const shown = [];
      forEachDiagnostic(view.state, (d, from) => shown.push({ line: view.state.doc.lineAt(from).number, message: d.message }));
      return shown;
    },
    destroy: () => view.destroy(),
  };
}

/**
 * A read-only view of `doc` in `parent`, highlighted and numbered like the editor (a saved
 * version's HTML). It can be focused, selected and copied from, never changed.
 */
export function createCodeViewer({ parent, doc = "", label, styleNonce }) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        html,
        syntaxHighlighting(highlight),
        EditorView.lineWrapping,
        EditorState.readOnly.of(true),
        EditorView.editable.of(false),
        EditorView.contentAttributes.of({ "aria-label": label, "aria-readonly": "true", tabindex: "0" }),
        theme,
        styleNonce ? EditorView.cspNonce.of(styleNonce) : [],
      ],
    }),
  });
  return {
    view,
    getValue: () => view.state.doc.toString(),
    /** Scrolls line `number` (1-based) to the top of the pane, with a little of the line before it. */
    showLine(number) {
      const line = view.state.doc.line(Math.min(Math.max(1, number), view.state.doc.lines));
      view.dispatch({ effects: EditorView.scrollIntoView(line.from, { y: "start", yMargin: 24 }) });
    },
    destroy: () => view.destroy(),
  };
}
