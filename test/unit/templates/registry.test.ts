import { describe, expect, test } from "bun:test";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";

describe("template registry", () => {
  test("has the built-in event template with its documented fields", () => {
    const registry = createTemplateRegistry();
    const event = registry.get("event");
    expect(event).toBeDefined();
    expect(event!.fields.map((f) => f.name)).toEqual(["title", "subtitle", "logo_url", "date", "time", "location", "speaker_name", "speaker_avatar_url"]);
    expect(event!.fields.find((f) => f.name === "title")).toMatchObject({ required: true, maxLength: 200, type: "text" });
    expect(event!.fields.filter((f) => f.type === "image_url").map((f) => f.name)).toEqual(["logo_url", "speaker_avatar_url"]);
    expect(registry.list().map((t) => t.id)).toContain("event");
    expect(registry.get("nope")).toBeUndefined();
  });

  test("add registers a template without touching others", () => {
    const registry = createTemplateRegistry();
    registry.add({ id: "custom", description: "x", fields: [], render: () => ({ type: "div", props: {} }) });
    expect(registry.get("custom")?.id).toBe("custom");
    expect(registry.list().map((t) => t.id)).toEqual(["event", "blog", "custom"]);
  });
});
