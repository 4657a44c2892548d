/**
 * A layer far outside the canvas must be a refused render, not a dead process (src/render/rasterize.ts).
 * resvg 0.3x panics on a clipped, masked or translucent layer lying entirely more than twice the
 * canvas size away from it; the template language cannot rule that out (layout can push any box
 * that far, and an SVG image field can say anything). The cards are drawn in a child process:
 * with a binding that lets the panic abort (resvg-js 2.6.x), the child dies and this test fails,
 * instead of the test runner dying with it.
 */
import { expect, test } from "bun:test";

const FIXTURE = new URL("./fixtures/off-canvas-render.ts", import.meta.url).pathname;

test("far-off layers are 422 RENDER_FAILED, and the same process then draws an ordinary card", () => {
  const child = Bun.spawnSync(["bun", FIXTURE], { stdout: "pipe", stderr: "pipe", env: { ...process.env, RUST_BACKTRACE: "0" } });
  const lines = child.stdout.toString().trim().split("\n");
  expect({ exitCode: child.exitCode, lines }).toEqual({
    exitCode: 0,
    lines: [
      "scaled-image refused RENDER_FAILED",
      "wide-translucent-text refused RENDER_FAILED",
      "inline-svg refused RENDER_FAILED",
      "svg-image-field refused RENDER_FAILED",
      "ordinary rendered",
      "survived",
    ],
  });
});
