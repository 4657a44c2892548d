/** What a refused account-template definition reports: a 400 VALIDATION_ERROR and its details. */
import { expect } from "bun:test";
import { ApiError } from "../../../../src/errors.ts";
import { parseAccountTemplate } from "../../../../src/templates/account/index.ts";

export interface Refusal {
  field: string;
  message: string;
  line?: number;
  column?: number;
}

/** The details of the refusal of `body`; throws when it is accepted. */
export function refusals(body: unknown): Refusal[] {
  try {
    parseAccountTemplate(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("VALIDATION_ERROR");
    expect((error as ApiError).status).toBe(400);
    return ((error as ApiError).details ?? []) as Refusal[];
  }
  throw new Error("expected a refusal");
}
