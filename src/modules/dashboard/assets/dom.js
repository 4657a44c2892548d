// DOM helpers and formatters shared by every page. DOM is built with textContent, never
// innerHTML, so webhook URLs and server messages cannot inject markup.
// ---------------------------------------------------------------------------------------------
// DOM helpers

/** h("tag.class#id", {attr: value, onclick: fn}, ...children) */
export function h(spec, attrs, ...children) {
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
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs || {})) el.setAttribute(name, String(value));
  append(el, children);
  return el;
}

export function setAttrs(el, attrs) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name in el && typeof value !== "string") el[name] = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const main = () => $("#main");

export function setMain(...children) {
  const el = main();
  el.replaceChildren(...children.flat());
}

/** Moves focus to the page heading after a navigation, so keyboard and screen-reader users land there. */
export function focusHeading() {
  const heading = $("#main h1");
  if (heading) {
    heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: true });
  }
}

export const numberFormat = new Intl.NumberFormat("en-US");
export const fmt = (n) => numberFormat.format(n);
export const dateFormat = new Intl.DateTimeFormat("en-GB", { weekday: "short", day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
export const dateTimeFormat = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  timeZone: "UTC",
  hour12: false,
});
export const monthFormat = new Intl.DateTimeFormat("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });
export const dayFormat = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });

export const capitalize = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** A small status label (`ok`, `warn`, `bad`, …). */
export function pill(kind, text) {
  return h(`span.pill.pill-${kind}`, null, text);
}

// ---------------------------------------------------------------------------------------------
// Confirmations

/**
 * A question with two answers, as every page asks it: the question as text, a danger button that
 * names what it does and a safe one. The Templates page shows it in place of a row's actions;
 * askToConfirm shows it in a modal dialog.
 */
export function confirmation({ question, yes, no = "Cancel", attrs, questionId }) {
  const yesButton = h("button.button.small.danger", { type: "button" }, yes);
  const noButton = h("button.button.small", { type: "button" }, no);
  const box = h("div.confirm", attrs, h("p.small", { id: questionId }, question), h("div.actions", null, yesButton, noButton));
  return { box, yes: yesButton, no: noButton };
}

let dialogs = 0;

/**
 * Asks in a modal dialog and resolves true for yes. The native <dialog> keeps focus inside it,
 * makes the page behind inert and answers no on Escape; focus starts on the safe answer and goes
 * back to where it was when the answer is no.
 */
export function askToConfirm({ title, question, yes, no = "Cancel" }) {
  return new Promise((resolve) => {
    const opener = document.activeElement;
    const n = ++dialogs;
    const { box, yes: yesButton, no: noButton } = confirmation({ question, yes, no, questionId: `confirm-question-${n}` });
    const dialog = h(
      "dialog.card.confirm-dialog",
      { "aria-labelledby": `confirm-title-${n}`, "aria-describedby": `confirm-question-${n}` },
      h(`h2#confirm-title-${n}`, null, title),
      box,
    );
    let answer = false;
    yesButton.addEventListener("click", () => {
      answer = true;
      dialog.close();
    });
    noButton.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (!answer && opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    noButton.focus();
  });
}
