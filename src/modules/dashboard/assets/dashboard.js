// The ogsmith dashboard: a small single-page app with no dependencies, served from the binary
// as ES modules (one per page). It talks only to /dashboard/api/* with the HttpOnly session
// cookie; the API key typed at sign-in is sent once and never kept (no storage, the field is
// cleared).
import { call, field, showProblems, whenSessionEnds } from "./api.js";
import { $, capitalize, focusHeading, h, setMain } from "./dom.js";
import { renderFonts } from "./fonts.js";
import { mayLeave, pageLeft, showing, watchNavigation } from "./leaving.js";
import { renderPlayground } from "./playground.js";
import { renderSigningKeys } from "./signing-keys.js";
import { renderTemplates } from "./templates.js";
import { setRouter, state } from "./state.js";
import { renderUsage } from "./usage.js";
import { renderWebhooks } from "./webhooks.js";

// ---------------------------------------------------------------------------------------------
// Session

function signedInChrome(me) {
  $("#nav").hidden = !me;
  $("#account").hidden = !me;
  $("#account-label").textContent = me ? `${me.account.email} · ${me.account.key_prefix || ""}…` : "";
  const banner = $("#banner");
  if (me?.blocked) {
    banner.replaceChildren(
      h("strong", null, me.account.status === "canceled" ? "Subscription canceled. " : "Payment past due. "),
      `${me.blocked.message} API requests, previews and webhook changes are refused with ${me.blocked.code} until this is resolved. Your usage and settings stay visible here.`,
    );
    banner.hidden = false;
  } else {
    banner.replaceChildren();
    banner.hidden = true;
  }
}

function sessionEnded() {
  if (!state.me) return;
  // Nothing to ask: the session is gone, and with it whatever the page on screen held.
  pageLeft();
  showing(null);
  routeToken++;
  state.me = null;
  state.catalog = null;
  state.rules = null;
  signedInChrome(null);
  renderSignIn("Your session ended. Sign in again to continue.");
}

function renderSignIn(notice) {
  signedInChrome(null);
  const input = h("input#api-key", { type: "password", name: "api_key", autocomplete: "off", spellcheck: "false", required: true, placeholder: "og_…" });
  const button = h("button.button.primary", { type: "submit" }, "Sign in");
  const form = h(
    "form.stack",
    { novalidate: true },
    field("API key", input, { key: "api_key", hint: "Exchanged for a session cookie; the key itself is never stored in this browser." }),
    h("p.form-error", { role: "alert", hidden: true, dataset: { errorFor: "_form" } }),
    h("div.actions", null, button),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const apiKey = input.value;
    // The key leaves the page once, in this request; nothing keeps it afterwards.
    input.value = "";
    button.disabled = true;
    try {
      state.me = await call("POST", "/session", { api_key: apiKey });
      signedInChrome(state.me);
      if (!location.hash || location.hash === "#/" || location.hash === "#/sign-in") location.hash = "#/usage";
      else route();
    } catch (failure) {
      showProblems(form, failure, (name) => (name === "api_key" ? "api_key" : null));
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
  setMain(
    h(
      "section.card.signin",
      { "aria-labelledby": "signin-title" },
      h("h1#signin-title", null, "Sign in"),
      h("p.muted", null, "Sign in with your ogsmith API key to see usage, manage webhooks and try templates."),
      notice ? h("p.notice", { role: "status" }, notice) : null,
      form,
    ),
  );
  input.focus();
}

async function signOut() {
  if (!(await mayLeave("Sign out"))) return;
  pageLeft();
  showing(null);
  try {
    await call("DELETE", "/session");
  } catch {
    // Already gone server-side: the result is the same.
  }
  routeToken++;
  state.me = null;
  state.catalog = null;
  state.rules = null;
  state.editing = null;
  signedInChrome(null);
  // The entry keeps its number in the session history (see leaving.js).
  history.replaceState(history.state, "", "#/sign-in");
  renderSignIn("You are signed out.");
}

// ---------------------------------------------------------------------------------------------
// Router: a page per hash (#/templates/<id>). Links, Back and Forward change the hash; leaving.js
// watches it, asks before leaving unsaved work, and calls route().

const ROUTES = {
  usage: renderUsage,
  webhooks: renderWebhooks,
  templates: renderTemplates,
  fonts: renderFonts,
  playground: renderPlayground,
  "signing-keys": renderSigningKeys,
};
let routeToken = 0;

async function route() {
  const token = ++routeToken;
  // Whoever called has asked already where asking was due (leaving.js): the page on screen goes.
  pageLeft();
  showing(location.hash);
  if (!state.me) {
    try {
      state.me = await call("GET", "/me");
    } catch (failure) {
      if (token !== routeToken) return;
      if (failure.status === 401) return renderSignIn();
      return renderFatal(failure);
    }
  }
  if (token !== routeToken) return;
  signedInChrome(state.me);
  const name = (location.hash.replace(/^#\/?/, "") || "usage").split("/")[0];
  const view = ROUTES[name] || renderUsage;
  for (const link of document.querySelectorAll("#nav a")) {
    if (link.dataset.route === (ROUTES[name] ? name : "usage")) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.title = `${capitalize((ROUTES[name] ? name : "usage").replace("-", " "))} · ogsmith dashboard`;
  try {
    await view(() => token === routeToken);
    if (token === routeToken) focusHeading();
  } catch (failure) {
    if (token !== routeToken || failure.status === 401) return;
    renderFatal(failure);
  }
}

function renderFatal(failure) {
  setMain(
    h(
      "section.card",
      null,
      h("h1", null, "Something went wrong"),
      h("p.form-error", { role: "alert" }, failure.message),
      h("button.button", { type: "button", onclick: () => route() }, "Try again"),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Start

setRouter(route);
whenSessionEnds(sessionEnded);

document.addEventListener("DOMContentLoaded", () => {
  $("#sign-out").addEventListener("click", signOut);
  watchNavigation(route);
  route();
});
