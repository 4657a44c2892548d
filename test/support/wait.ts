/**
 * The one way a test waits: poll a condition until it holds, or fail after a deadline with a
 * message that says what was awaited. Never a bare sleep — a sleep is either too short on a
 * loaded machine (flaky) or too long everywhere else (slow). The receivers and the SMTP server
 * of test/support wrap this with their own context in the message.
 */
export interface WaitOptions {
  /**
   * Give up after this many milliseconds of real time (default 20 s: long enough for a busy
   * 2-core machine, within the 30 s a test gets).
   */
  timeoutMs?: number;
  /** Milliseconds between polls (default 5). */
  intervalMs?: number;
}

export async function waitFor(condition: () => boolean | Promise<boolean>, what: string | (() => string), options: WaitOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "function" ? what() : what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 5));
  }
}
