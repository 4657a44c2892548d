/**
 * A real webhook receiver on 127.0.0.1 (Svix TestReceiver style): records every request with its
 * exact body and headers, answers with a status that tests can switch per path (and a delay,
 * or a hang until released), and waits for deliveries with a deadline instead of sleeping.
 */
import { waitFor as waitUntil } from "./wait.ts";

export interface Received {
  path: string;
  method: string;
  headers: Record<string, string>;
  /** The raw body as sent (what signatures are computed over). */
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
}

export interface Behaviour {
  status?: number;
  /** Real-time delay before answering. */
  delayMs?: number;
  /** Never answer until `releaseHung()` (or `stop()`). */
  hang?: boolean;
  headers?: Record<string, string>;
}

export interface TestReceiver {
  /** `http://127.0.0.1:<port><path>`; give each webhook its own path to tell them apart. */
  url(path?: string): string;
  readonly port: number;
  /** Every request, in arrival order. */
  readonly received: Received[];
  /** Requests to one path. */
  at(path: string): Received[];
  /** Events (parsed bodies) delivered to one path, in arrival order. */
  events(path?: string): { id: string; event: string; timestamp: string; data: any }[];
  /** Sets the answer for one path, or the default when `path` is omitted. */
  respond(behaviour: Behaviour, path?: string): void;
  /** Answers every hung request with 200. */
  releaseHung(): void;
  /** Requests waiting for an answer right now. */
  readonly pending: number;
  /** Resolves once `condition()` holds; fails after `timeoutMs` of real time. */
  waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs?: number): Promise<void>;
  /** Waits until `path` (or anything, when omitted) has received at least `count` requests. */
  waitForCount(count: number, path?: string, timeoutMs?: number): Promise<Received[]>;
  clear(): void;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<TestReceiver> {
  const received: Received[] = [];
  const behaviours = new Map<string, Behaviour>();
  let fallback: Behaviour = { status: 200 };
  const hung = new Set<() => void>();
  let pending = 0;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // A hung request must stay open for as long as the test wants (Bun's default closes idle sockets after 10 s).
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = await request.text();
      received.push({ path: url.pathname, method: request.method, headers: Object.fromEntries(request.headers), body, at: performance.now() });
      const behaviour = behaviours.get(url.pathname) ?? fallback;
      pending++;
      try {
        if (behaviour.hang) await new Promise<void>((resolve) => hung.add(resolve));
        else if (behaviour.delayMs) await Bun.sleep(behaviour.delayMs);
      } finally {
        pending--;
      }
      return new Response(behaviour.hang ? "released" : "ok", { status: behaviour.hang ? 200 : (behaviour.status ?? 200), headers: behaviour.headers });
    },
  });
  const port = server.port!;

  const waitFor = (condition: () => boolean | Promise<boolean>, what: string, timeoutMs?: number) =>
    waitUntil(condition, () => `receiver: ${what} (received ${received.length})`, { timeoutMs });
  const at = (path: string) => received.filter((r) => r.path === path);

  return {
    port,
    url: (path = "/") => `http://127.0.0.1:${port}${path}`,
    received,
    at,
    events: (path) => (path === undefined ? received : at(path)).map((r) => JSON.parse(r.body)),
    respond(behaviour, path) {
      if (path === undefined) fallback = behaviour;
      else behaviours.set(path, behaviour);
    },
    releaseHung() {
      for (const resolve of hung) resolve();
      hung.clear();
    },
    get pending() {
      return pending;
    },
    waitFor,
    async waitForCount(count, path, timeoutMs) {
      const list = () => (path === undefined ? received : at(path));
      await waitFor(() => list().length >= count, `${count} request(s)${path ? ` to ${path}` : ""}`, timeoutMs);
      return list();
    },
    clear() {
      received.length = 0;
    },
    async stop() {
      for (const resolve of hung) resolve();
      hung.clear();
      await server.stop(true);
    },
  };
}
