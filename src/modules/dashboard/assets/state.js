// State shared by the pages, the server-defined rules, and the router hook the pages call.
import { call } from "./api.js";

export const state = {
  me: null,
  /** The template catalog (GET /dashboard/api/templates): templates and common parameters. */
  catalog: null,
  /** The input rules the server enforces (GET /dashboard/api/rules). */
  rules: null,
  /** Playground: chosen template and theme, values per template, and which fields the user typed. */
  playground: { template: null, theme: null, values: {}, typed: {}, size: {} },
  /** Webhook being edited (its record) or null for "add". */
  editing: null,
};

/** The server's input rules, fetched once per sign-in. */
export async function rules() {
  if (!state.rules) state.rules = await call("GET", "/rules");
  return state.rules;
}

let router = async () => {};
export function setRouter(fn) {
  router = fn;
}
/** Re-renders the current page. */
export const route = () => router();
