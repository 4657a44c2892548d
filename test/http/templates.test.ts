/**
 * GET /api/templates in process: the built-in templates and their typed fields.
 */
import { describe, expect, test } from "bun:test";
import { customAccount, useInProcessApp } from "../support/in-process.ts";

const s = useInProcessApp();

describe("shapes", () => {
  test("GET /api/templates: id, description and typed fields for both built-ins", async () => {
    const { key } = await customAccount(s);
    const res = await s.api("/api/templates", { key });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as {
      data: { id: string; description: string; fields: { name: string; type: string; required: boolean; max_length: number }[] }[];
    };
    expect(data.map((t) => t.id)).toEqual(expect.arrayContaining(["event", "blog"]));
    const event = data.find((t) => t.id === "event")!;
    expect(event.fields.find((f) => f.name === "title")).toMatchObject({ name: "title", type: "text", required: true, max_length: 200 });
    // An image field takes an http(s) URL of 2,048 characters or a data: image of 5 MiB (7 MiB of characters at most).
    expect(event.fields.find((f) => f.name === "speaker_avatar_url")).toMatchObject({
      type: "image_url",
      required: false,
      max_length: 7 * 1024 * 1024,
      max_url_length: 2048,
      max_image_bytes: 5 * 1024 * 1024,
    });
  });
});
