/** Runs measurePhases inside a worker thread for bench/render-phases.ts. */
import { measurePhases } from "./phases.ts";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<{ count: number }>) => {
  self.postMessage(await measurePhases(event.data.count));
};
