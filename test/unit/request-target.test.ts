import { expect, test } from "bun:test";
import { pathnameOf } from "../../src/http/request-context.ts";
import { routableUrl } from "../../src/app/server.ts";

const own = "http://127.0.0.1:3000";

test("routableUrl: parseable URLs pass through; no or malformed Host → the path on this server's origin", () => {
  expect(routableUrl("http://example.com/healthz?x=1", own)).toBe("http://example.com/healthz?x=1");
  expect(routableUrl("http://web/healthz", own)).toBe("http://web/healthz");
  // HTTP/1.0 without Host, or an empty Host: Bun gives the bare path.
  expect(routableUrl("/api/webhooks/wh_1/deliveries?x=1", own)).toBe(`${own}/api/webhooks/wh_1/deliveries?x=1`);
  // Malformed hosts: the path survives, the host is replaced.
  for (const host of ["[", "%zz", "a:99999"]) expect(routableUrl(`http://${host}/healthz`, own)).toBe(`${own}/healthz`);
  expect(routableUrl("http://[", own)).toBe(`${own}/`);
  // No resource named at all.
  for (const target of ["*", "example.com:443", "ftp://a/b"]) expect(routableUrl(target, own)).toBeUndefined();
});

test("pathnameOf never throws, whatever the URL", () => {
  const fake = (url: string) => ({ url }) as Request;
  expect(pathnameOf(fake("http://x/api/generate?y=/z"))).toBe("/api/generate");
  expect(pathnameOf(fake("/api/generate?y=1"))).toBe("/api/generate");
  expect(pathnameOf(fake("http://[/api/user/usage#f"))).toBe("/api/user/usage");
  expect(pathnameOf(fake("http://["))).toBe("/");
  expect(pathnameOf(fake("*"))).toBe("/");
});
