/** Route patterns of the assembled app, for 405 answers and low-cardinality metric labels. */
export interface RouteTable {
  /** The pattern (e.g. `/api/webhooks/:id`) matching this path, if any route has it. */
  patternOf(pathname: string): string | undefined;
  /** Methods served at the pattern matching this path (empty when none). */
  methodsAt(pathname: string): string[];
}

export function buildRouteTable(routes: { method: string; path: string }[]): RouteTable {
  const patterns = new Map<string, { regex: RegExp; methods: Set<string> }>();
  for (const route of routes) {
    if (route.path.includes("*")) continue;
    let entry = patterns.get(route.path);
    if (!entry) {
      const source = route.path
        .split("/")
        .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("/");
      entry = { regex: new RegExp(`^${source}/?$`), methods: new Set() };
      patterns.set(route.path, entry);
    }
    entry.methods.add(route.method.toUpperCase());
  }
  // Literal patterns by path (with and without a trailing slash): the common case is one lookup.
  const literal = new Map<string, [string, { methods: Set<string> }]>();
  for (const [pattern, entry] of patterns) {
    if (pattern.includes(":")) continue;
    // The first pattern to match a path wins, as in the scan below.
    for (const path of pattern.endsWith("/") ? [pattern] : [pattern, pattern + "/"]) if (!literal.has(path)) literal.set(path, [pattern, entry]);
  }
  const find = (pathname: string) => {
    // Prefer a literal match (`/api/webhooks/test`) over a parameter one (`/api/webhooks/:id`).
    const exact = literal.get(pathname);
    if (exact) return exact;
    let best: [string, { methods: Set<string> }] | undefined;
    for (const [pattern, entry] of patterns) {
      if (!entry.regex.test(pathname)) continue;
      if (!best || pattern.split(":").length < best[0].split(":").length) best = [pattern, entry];
    }
    return best;
  };
  return {
    patternOf: (pathname) => find(pathname)?.[0],
    methodsAt: (pathname) => {
      const methods = new Set<string>();
      for (const entry of patterns.values()) if (entry.regex.test(pathname)) for (const m of entry.methods) methods.add(m);
      return [...methods];
    },
  };
}
