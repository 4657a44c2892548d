/** The fan-out of an event, decided without a store: which rows recording it writes. */
import { describe, expect, test } from "bun:test";
import { fanOut } from "../../../src/events/fan-out.ts";
import { planAlert } from "../../../src/events/raise-alert.ts";
import { EMAIL_JOB, EMAIL_LANE, WEBHOOK_DELIVERY_JOB, type AlertDraft, type Subscription } from "../../../src/store/types.ts";

const NOW = 1_780_000_000_000;
const webhook = (id: string, events: string[], createdAt: number, seq: number): Subscription => ({ id, events: JSON.stringify(events), createdAt, seq });
const draft = { type: "usage.warning", data: '{"percent":80}' };
const alert: AlertDraft = { kind: "usage_warning", subject: "80% used", facts: { percent: 80 }, dedupeKey: "acc_1:2026-06:usage_warning" };

describe("fanOut", () => {
  test("one delivery job per subscribed webhook, in creation order (then insertion order), and the event is kept", () => {
    const subscriptions = [
      webhook("wh_late", ["usage.warning"], NOW + 5, 1),
      webhook("wh_other_type", ["image.generated"], NOW - 10, 2),
      webhook("wh_tie_second", ["image.generated", "usage.warning"], NOW, 9),
      webhook("wh_tie_first", ["usage.warning"], NOW, 3),
    ];
    const plan = fanOut("acc_1", draft, subscriptions, null, NOW);
    expect(plan.storeEvent).toBe(true);
    expect(plan.event).toMatchObject({ accountId: "acc_1", type: "usage.warning", data: draft.data, createdAt: NOW });
    expect(plan.event.id).toMatch(/^evt_/);
    expect(plan.deliveries.map((job) => job.webhookId)).toEqual(["wh_tie_first", "wh_tie_second", "wh_late"]);
    for (const job of plan.deliveries) {
      expect(job).toEqual({
        kind: WEBHOOK_DELIVERY_JOB,
        lane: job.webhookId!,
        accountId: "acc_1",
        webhookId: job.webhookId,
        eventId: plan.event.id,
        runAt: NOW,
        now: NOW,
      });
    }
    expect(plan.alert).toBeUndefined();
  });

  test("an event no webhook takes is not stored and queues nothing", () => {
    const plan = fanOut("acc_1", draft, [webhook("wh_1", ["image.generated"], NOW, 1)], null, NOW);
    expect(plan.storeEvent).toBe(false);
    expect(plan.deliveries).toEqual([]);
    expect(fanOut("acc_1", draft, [], null, NOW).storeEvent).toBe(false);
  });

  test("an event's alert goes to the owner's address with its email job, even with no webhook", () => {
    const plan = fanOut("acc_1", { ...draft, alert }, [], "owner@example.com", NOW);
    expect(plan.storeEvent).toBe(false);
    const planned = plan.alert!;
    expect(planned.row).toEqual({ id: planned.row.id, accountId: "acc_1", recipient: "owner@example.com", createdAt: NOW, ...alert });
    expect(planned.row.id).toMatch(/^eml_/);
    expect(planned.job).toEqual({ kind: EMAIL_JOB, lane: EMAIL_LANE, accountId: "acc_1", payload: { alert_id: planned.row.id }, runAt: NOW, now: NOW });
  });

  test("no alert when the account is gone", () => {
    expect(fanOut("acc_1", { ...draft, alert }, [], null, NOW).alert).toBeUndefined();
    expect(planAlert("acc_1", alert, null, NOW)).toBeUndefined();
  });

  test("each event and alert gets an id of its own", () => {
    const a = fanOut("acc_1", { ...draft, alert }, [], "owner@example.com", NOW);
    const b = fanOut("acc_1", { ...draft, alert }, [], "owner@example.com", NOW);
    expect(a.event.id).not.toBe(b.event.id);
    expect(a.alert!.row.id).not.toBe(b.alert!.row.id);
  });
});
