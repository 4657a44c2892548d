/** The one error envelope of docs/api.md, asserted field by field. */
import { expect } from "bun:test";

export interface ErrorEnvelope {
  error: true;
  message: string;
  code: string;
  details?: { field: string; message: string; reason?: string }[];
}

/** Asserts the status, the code and the envelope's exact shape and headers; returns the body. */
export async function envelope(res: Response, status: number, code: string): Promise<ErrorEnvelope> {
  const body = (await res.json()) as any;
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(body.error).toBe(true);
  expect(typeof body.message).toBe("string");
  expect(body.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(body)) expect(["error", "message", "code", "details"]).toContain(key);
  expect(res.headers.get("content-type")).toStartWith("application/json");
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  return body;
}
