export * from "./accounts.ts";
export * from "./usage.ts";
export * from "./events.ts";
