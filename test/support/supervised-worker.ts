/**
 * A worker thread for test/unit/store/thread-supervisor.test.ts. Each incarnation counts itself in
 * `starts[0]` and behaves as `plan` says for that start (1-based; the last entry repeats):
 * "ready" then answers pings, exits on "die" and on "stop"; "fail" reports a failed start; "silent"
 * never says anything.
 */
declare const self: Worker;

export type StartPlan = "ready" | "fail" | "silent";
export type SupervisedInit = { starts: SharedArrayBuffer; plan: StartPlan[] };
export type FromSupervised = { type: "ready"; start: number } | { type: "failed"; message: string } | { type: "pong"; start: number };

const send = (message: FromSupervised) => self.postMessage(message);

self.onmessage = (event: MessageEvent<SupervisedInit>) => {
  const { starts, plan } = event.data;
  const start = Atomics.add(new Int32Array(starts), 0, 1) + 1;
  const behaviour = plan[Math.min(start, plan.length) - 1];
  if (behaviour === "fail") send({ type: "failed", message: `start ${start} refused` });
  if (behaviour === "silent") {
    // Deaf as well: a stop message changes nothing, only terminate() ends it.
    self.onmessage = () => {};
    return;
  }
  if (behaviour !== "ready") return;
  self.onmessage = (next: MessageEvent<string>) => {
    if (next.data === "ping") send({ type: "pong", start });
    else process.exit(0);
  };
  send({ type: "ready", start });
};
