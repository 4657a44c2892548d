/**
 * The transactional outbox. `recordEvent` must be called inside the transaction that makes the
 * change the event reports, so the event exists if and only if the change committed.
 * Listeners registered with `onCommitted` are told after the caller's transaction returns, so
 * delivery can start at once instead of at the next worker tick.
 */
import type { Tx } from "../db/client.ts";
import { events } from "../db/schema/index.ts";
import { newId } from "../ids.ts";
import type { EventData, EventType } from "./types.ts";

export interface RecordedEvent {
  id: string;
  accountId: string;
  type: EventType;
  createdAt: number;
}

/** Work that must happen in the same transaction as the event row (e.g. fan-out to delivery jobs). */
export type FanOut = (tx: Tx, event: RecordedEvent, data: unknown) => void;

export class Outbox {
  private readonly fanOuts: FanOut[] = [];
  private readonly committedListeners = new Set<() => void>();

  addFanOut(fanOut: FanOut): void {
    this.fanOuts.push(fanOut);
  }

  recordEvent<T extends EventType>(tx: Tx, accountId: string, type: T, data: EventData[T], at: number): RecordedEvent {
    const event: RecordedEvent = { id: newId("evt"), accountId, type, createdAt: at };
    tx.insert(events).values({ id: event.id, accountId, type, data: JSON.stringify(data), createdAt: at }).run();
    for (const fanOut of this.fanOuts) fanOut(tx, event, data);
    return event;
  }

  onCommitted(listener: () => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /** Call after a transaction that recorded events has committed. */
  committed(): void {
    for (const listener of this.committedListeners) listener();
  }
}
