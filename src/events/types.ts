/** The events webhooks subscribe to and their data; the test event is separate. */
export const EVENT_TYPES = ["image.generated", "usage.warning", "usage.limit_reached", "usage.reset", "batch.completed"] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

export interface EventData {
  "image.generated": {
    request_id: string;
    template: string;
    dimensions: { width: number; height: number };
    generation_time_ms: number;
    /** Batch items only: the batch and the item's index in it. */
    batch_id?: string;
    batch_index?: number;
  };
  "usage.warning": { current_usage: number; quota: number; percentage: number; plan: string };
  "usage.limit_reached": { current_usage: number; quota: number; plan: string; resets_at: string };
  "usage.reset": { previous_usage: number; new_quota: number; plan: string };
  "batch.completed": { batch_id: string; total: number; done: number; failed: number };
}
