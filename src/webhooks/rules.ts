/**
 * The input rules for webhooks, defined once: the core checker (service.ts), the HTTP schemas
 * (and so the OpenAPI document) and the dashboard (which reads them from the server) use these.
 */
export { EVENT_TYPES } from "../events/types.ts";

export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
export const MAX_URL_LENGTH = 2048;
export const SECRET_MIN = 16;
export const SECRET_MAX = 256;
