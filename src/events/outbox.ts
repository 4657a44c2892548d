/**
 * The transactional outbox, as the core sees it. An event is drafted here and handed to the
 * store method that makes the change it reports (a usage confirmation, the monthly reset), which
 * records it — with its webhook delivery jobs and any email alert — in that change's
 * transaction, so the event exists if and only if the change committed.
 *
 * Alert rules (registered by the email module) decide which events also raise an email alert.
 * The store tells the job worker when such a change queued jobs (`Store.onJobsAvailable`), so
 * delivery starts at once instead of at the next worker tick.
 */
import type { AlertDraft, EventDraft } from "../store/types.ts";
import type { EventData, EventType } from "./types.ts";

export interface DraftedEvent<T extends EventType = EventType> {
  accountId: string;
  type: T;
  data: EventData[T];
  /** Clock time of the change. */
  at: number;
}

/** Decides, from the event alone, whether it raises an email alert (pure, synchronous). */
export type AlertRule = (event: DraftedEvent) => AlertDraft | undefined;

export class Outbox {
  private readonly alertRules: AlertRule[] = [];

  addAlertRule(rule: AlertRule): void {
    this.alertRules.push(rule);
  }

  /** The event as the store records it: data serialized once (every retry sends these bytes) and its alert, if any. */
  draft<T extends EventType>(accountId: string, type: T, data: EventData[T], at: number): EventDraft {
    const event: DraftedEvent = { accountId, type, data, at } as DraftedEvent;
    let alert: AlertDraft | undefined;
    for (const rule of this.alertRules) alert ??= rule(event);
    return alert ? { type, data: JSON.stringify(data), alert } : { type, data: JSON.stringify(data) };
  }
}
