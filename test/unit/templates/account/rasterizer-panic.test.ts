/**
 * A known hole, kept as a runnable reproduction (`bun test --todo` runs it): a tenant layout
 * that puts a clipped, masked or translucent layer more than twice the canvas size away from
 * it makes resvg 0.3x panic (`fit_to_rect` unwraps an empty rectangle), and the panic aborts
 * the whole process — every account's renders with it. The template language cannot rule this
 * out (flex layout can push any box that far). @resvg/resvg-js 2.7.0-alpha.2 (same resvg)
 * turns the panic into a thrown Error; with that, this test passes and the render is a 422.
 */
import { expect, test } from "bun:test";

test.todo("a layer far outside the canvas does not take the process down", () => {
  const child = Bun.spawnSync(["bun", new URL("./fixtures/off-canvas-render.ts", import.meta.url).pathname], { stdout: "pipe", stderr: "pipe" });
  expect(child.stdout.toString()).toContain("survived");
});
