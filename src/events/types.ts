/** The four spec events (§6.2) and their data, plus the dashboard/API test event. */
export const EVENT_TYPES = ["image.generated", "usage.warning", "usage.limit_reached", "usage.reset"] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

export interface EventData {
  "image.generated": {
    request_id: string;
    template: string;
    dimensions: { width: number; height: number };
    generation_time_ms: number;
  };
  "usage.warning": { current_usage: number; quota: number; percentage: number; plan: string };
  "usage.limit_reached": { current_usage: number; quota: number; plan: string; resets_at: string };
  "usage.reset": { previous_usage: number; new_quota: number; plan: string };
}

/** The delivered envelope: spec §6.1 plus `id`, identical across retries (DESIGN §5). */
export interface EventEnvelope<T extends EventType | "webhook.test" = EventType> {
  id: string;
  event: T;
  timestamp: string;
  data: T extends EventType ? EventData[T] : Record<string, unknown>;
}
