// Leaving a page: the router asks here before another page replaces the one on screen. A page
// that can hold unsaved work (the template editor) says so with onLeavingPage; then every way out
// inside the dashboard asks first, in a modal dialog:
// - a link to another page: caught before it navigates, followed once the user agrees;
// - Back, Forward, or an address typed in: the address has already moved when the page hears of
//   it, so it is stepped back to the entry on screen and the move replayed once the user agrees
//   (each entry carries its position in the session history, to know how far to step);
// - signing out (the router asks with mayLeave).
// Closing or reloading the tab is the page's own beforeunload. Pages are addressed by the hash
// (#/templates/<id>); a hash without the slash (#main, the skip link) is an anchor in the page on
// screen and leaves nothing.
import { askToConfirm } from "./dom.js";

/** The page on screen: { unsaved(): boolean, question: string, left(): void }, or null. */
let page = null;
/** The hash of the page on screen, or null when none is (signed out). */
let shownHash = null;
/** The position in the session history of the entry on screen. */
let shownAt = 0;
/** Set while the address is being stepped back: resolves on the hashchange that step causes. */
let stepped = null;
let asking = false;

const isPage = (hash) => hash === "" || hash.startsWith("#/");

/**
 * Called by a page once it is on screen: `unsaved()` tells whether leaving would lose work,
 * `question` is what the dialog says then, `left()` tidies up (timers, listeners) once it goes.
 */
export function onLeavingPage(hooks) {
  page = hooks;
}

/** The page on screen is being replaced (it has been asked, or there was nothing to ask). */
export function pageLeft() {
  const leaving = page;
  page = null;
  leaving?.left?.();
}

/** The router shows the page for `hash` (null: a page outside the router, such as sign-in). */
export function showing(hash) {
  shownHash = hash;
}

/**
 * Resolves true when the page on screen may be left: nothing unsaved, or the user agreed.
 * `action` names what leaving does, on the button that goes ahead ("Leave", "Sign out").
 */
export async function mayLeave(action = "Leave") {
  if (!page?.unsaved()) return true;
  if (asking) return false;
  asking = true;
  try {
    return await askToConfirm({ title: "Discard unsaved changes?", question: page.question, yes: `${action} without saving`, no: "Keep editing" });
  } finally {
    asking = false;
  }
}

/** Numbers the entry on screen: one it has seen keeps its number, a new one is one past the last. */
function numberEntry() {
  const at = history.state?.position;
  if (typeof at === "number") {
    shownAt = at;
  } else {
    shownAt += 1;
    history.replaceState({ ...history.state, position: shownAt }, "");
  }
}

function stepBy(delta) {
  return new Promise((resolve) => {
    stepped = resolve;
    history.go(delta);
  });
}

/** Watches the ways out: links (clicks), and the address (hashchange). `route` renders the page for the address. */
export function watchNavigation(route) {
  numberEntry();

  document.addEventListener("click", (event) => {
    if (!page?.unsaved() || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    // A link into another tab leaves this page as it is; one out of the dashboard unloads it (beforeunload asks).
    if (!link || link.target) return;
    const href = link.getAttribute("href");
    if (!href.startsWith("#/") || href === shownHash) return;
    event.preventDefault();
    mayLeave().then((yes) => {
      if (!yes) return;
      pageLeft();
      location.hash = href;
    });
  });

  window.addEventListener("hashchange", async () => {
    if (stepped) {
      // The step back below: the page on screen is the one this entry shows.
      const done = stepped;
      stepped = null;
      numberEntry();
      return done();
    }
    const to = location.hash;
    if (!isPage(to) || to === shownHash || !page?.unsaved()) {
      numberEntry();
      if (isPage(to) && to !== shownHash) route();
      return;
    }
    // Back, Forward or a typed address, away from unsaved work: back to the entry on screen first.
    // (An entry this page has not numbered is a new one, one past the entry on screen.)
    const at = typeof history.state?.position === "number" && history.state.position !== shownAt ? history.state.position : null;
    const from = shownAt;
    await stepBy(at === null ? -1 : from - at);
    if (!(await mayLeave())) return;
    pageLeft();
    if (at !== null) history.go(at - from);
    else location.hash = to;
  });
}
