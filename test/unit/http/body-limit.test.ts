/** Which body limit a request gets: 8 MiB where a body's images are drawn, 1 MiB on the other template routes, 64 KiB everywhere else. */
import { expect, test } from "bun:test";
import { bodyLimitOf, MAX_BODY_BYTES, MAX_IMAGE_BODY_BYTES, MAX_TEMPLATE_BODY_BYTES, parseJsonBody } from "../../../src/http/body.ts";
import { ApiError } from "../../../src/errors.ts";

test("generate and the previews take 8 MiB, the template routes 1 MiB; look-alike paths and every other route 64 KiB", () => {
  for (const path of ["/api/generate", "/api/generate?x=1", "/api/templates/preview", "/dashboard/api/preview", "/dashboard/api/account-templates/preview"]) {
    expect([path, bodyLimitOf(`http://localhost${path}`)]).toEqual([path, MAX_IMAGE_BODY_BYTES]);
  }
  for (const path of [
    "/api/templates",
    "/api/templates/",
    "/api/templates/promo",
    "/api/templates/promo/versions",
    "/api/templates?x=1",
    "/dashboard/api/account-templates/promo",
  ]) {
    expect([path, bodyLimitOf(`http://localhost${path}`)]).toEqual([path, MAX_TEMPLATE_BODY_BYTES]);
  }
  for (const path of ["/api/generatex", "/api/templatesx", "/api/template", "/dashboard/api/templates", "/dashboard/api/previews", "/", "/api/image-urls"]) {
    expect([path, bodyLimitOf(`http://localhost${path}`)]).toEqual([path, MAX_BODY_BYTES]);
  }
});

test("a streamed body (no Content-Length) is held to the route's limit too", async () => {
  const body = (bytes: number) =>
    new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"pad":"${"x".repeat(bytes)}"}`));
        controller.close();
      },
    });
  const post = (path: string, bytes: number) =>
    new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: body(bytes) });
  expect(await parseJsonBody(post("/api/templates", 900 * 1024))).toEqual({ pad: "x".repeat(900 * 1024) });
  const tooLarge = await parseJsonBody(post("/api/templates", 1024 * 1024)).catch((error) => error);
  expect(tooLarge).toBeInstanceOf(ApiError);
  expect((tooLarge as ApiError).code).toBe("PAYLOAD_TOO_LARGE");
  expect(((await parseJsonBody(post("/api/image-urls", 65 * 1024)).catch((error) => error)) as ApiError).code).toBe("PAYLOAD_TOO_LARGE");
  expect(((await parseJsonBody(post("/api/generate", 8 * 1024 * 1024)).catch((error) => error)) as ApiError).code).toBe("PAYLOAD_TOO_LARGE");
});
