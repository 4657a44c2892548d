export * from "./accounts.ts";
export * from "./usage.ts";
export * from "./events.ts";
export * from "./webhooks.ts";
export * from "./jobs.ts";
export * from "./email-alerts.ts";
export * from "./sessions.ts";
export * from "./probe.ts";
