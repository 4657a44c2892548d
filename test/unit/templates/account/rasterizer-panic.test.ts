/**
 * A layer far outside the canvas must cost one refused render, not the server. resvg 0.3x panics
 * on a clipped, masked or translucent layer lying entirely more than twice the canvas size away
 * from it; the template language cannot rule that out (layout can push any box that far, and an
 * SVG image field can say anything), and resvg-js 2.6.x lets that panic abort the process that
 * draws. That process is a render process: the render answers 422 RENDER_FAILED, a replacement
 * starts, and the pool draws the next card.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ApiError } from "../../../../src/errors.ts";
import { silentLogger } from "../../../../src/logger.ts";
import { RenderPool, type RenderJob } from "../../../../src/render/sandbox/pool.ts";
import { parseAccountTemplate } from "../../../../src/templates/account/index.ts";
import { decodePng, solidPngDataUri } from "../../../support/png.ts";
import { FAR_TRANSLUCENT_SVG } from "./fixtures/off-canvas-svg.ts";

const farSvgUri = `data:image/svg+xml;base64,${Buffer.from(FAR_TRANSLUCENT_SVG).toString("base64")}`;
const account = (id: string, html: string): RenderJob => ({
  template: id,
  theme: "dark",
  fields: {},
  images: {},
  width: 1200,
  height: 630,
  accountTemplate: { accountId: "acc_far", version: 1, spec: parseAccountTemplate({ id, html }) },
});
const event = (fields: Record<string, string>, images: Record<string, string> = {}): RenderJob => ({
  template: "event",
  theme: "dark",
  fields,
  images,
  width: 1200,
  height: 630,
});

const cases: [string, RenderJob][] = [
  ["scaled-image", account("scaled-image", `<div style="transform: scale(10)"><img src="${solidPngDataUri(4, 4, [255, 0, 0])}" width="20" height="20"></div>`)],
  [
    "wide-translucent-text",
    account("wide-translucent-text", `<div class="flex w-[10000px] justify-end opacity-50"><div class="text-4xl">Far away</div></div>`),
  ],
  ["inline-svg", account("inline-svg", `<div style="display: flex">${FAR_TRANSLUCENT_SVG.replace(/ xmlns="[^"]*"/, "")}</div>`)],
  ["svg-image-field", event({ title: "Far logo", logo_url: farSvgUri }, { logo_url: farSvgUri })],
];

let pool: RenderPool;
beforeAll(() => {
  pool = new RenderPool({ workers: 1, logger: silentLogger, warmUp: false });
});
afterAll(() => pool.close());

test("far-off layers are 422 RENDER_FAILED, and the pool then draws an ordinary card", async () => {
  for (const [name, job] of cases) {
    const outcome = await pool.render(job).then(
      () => "rendered",
      (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
    );
    expect({ name, outcome }).toEqual({ name, outcome: "RENDER_FAILED" });
  }
  const ordinary = await pool.render(event({ title: "Still drawing" }));
  expect(decodePng(ordinary.bytes).width).toBe(1200);
}, 60_000);
