// Talking to /dashboard/api/* with the HttpOnly session cookie, and showing the API's field
// errors next to the fields they name.
import { capitalize, h } from "./dom.js";

let onSessionEnded = () => {};
/** What to do when any call answers 401 (the session expired or was ended elsewhere). */
export function whenSessionEnds(handler) {
  onSessionEnded = handler;
}

// ---------------------------------------------------------------------------------------------
// API

export class ApiFailure extends Error {
  constructor(status, body, headers) {
    super(body?.message || `Request failed with status ${status}`);
    this.status = status;
    this.code = body?.code || "HTTP_" + status;
    this.details = body?.details || [];
    this.retryAfter = Number(headers.get("retry-after")) || 0;
  }
}

export async function call(method, path, body, { raw = false, signal } = {}) {
  const init = { method, credentials: "same-origin", headers: { accept: raw ? "image/png" : "application/json" }, signal };
  if (body instanceof FormData) {
    // A file upload: the browser writes the multipart content type with its boundary.
    init.body = body;
  } else if (body !== undefined) {
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
    if (res.status === 401 && path !== "/session") onSessionEnded();
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
export function showProblems(form, failure, fieldFor) {
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

export function clearProblems(form) {
  for (const slot of form.querySelectorAll("[data-error-for]")) {
    slot.textContent = "";
    slot.hidden = true;
  }
  for (const control of form.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
}

/** A labelled control with its hint and error slot; `control` carries id and data-field. */
export function field(labelText, control, { hint, key } = {}) {
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
