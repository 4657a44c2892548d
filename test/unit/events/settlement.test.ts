/** Settling a job's attempt, decided without a store: which rows the settle writes. */
import { describe, expect, test } from "bun:test";
import { planSettlement, webhookToRead, type WebhookState } from "../../../src/events/settlement.ts";
import { type AlertDraft, type DeliveryAttemptRecord, EMAIL_JOB, EMAIL_LANE, type JobSettlement } from "../../../src/store/types.ts";

const NOW = 1_780_000_000_000;
const attempt = {
  id: "dlv_1",
  webhookId: "wh_1",
  accountId: "acc_1",
  jobId: "job_1",
  eventId: "evt_1",
  eventType: "image.generated",
  attempt: 8,
} as DeliveryAttemptRecord;
const alert: AlertDraft = { kind: "webhook_disabled", subject: "Webhook disabled", facts: { webhook_id: "wh_1" }, dedupeKey: null };
const retry: JobSettlement = { jobId: "job_1", now: NOW, status: "pending", runAt: NOW + 60_000, lastError: "http 500", deliveryAttempt: attempt };
const giveUp: JobSettlement = { ...retry, status: "failed", runAt: NOW, disableWebhook: { webhookId: "wh_1", reason: "failing", alert } };
const enabled: WebhookState = { accountId: "acc_1", status: "enabled", ownerEmail: "owner@example.com" };

describe("planSettlement", () => {
  test("a retry of a pending job: the job goes back to pending at its next run time, unfinished, and the attempt is logged", () => {
    expect(webhookToRead(retry, "pending")).toBeUndefined();
    const plan = planSettlement(retry, "pending", null);
    expect(plan.result).toEqual({ wasPending: true, status: "pending" });
    expect(plan.job).toEqual({ id: "job_1", status: "pending", runAt: NOW + 60_000, lastError: "http 500", updatedAt: NOW, finishedAt: null });
    expect(plan.deliveryAttempt).toBe(attempt);
    expect(plan.disableWebhook).toBeUndefined();
    expect(plan.alert).toBeUndefined();
  });

  test("a final failure while the webhook is enabled disables it, cancels its deliveries and alerts the owner", () => {
    expect(webhookToRead(giveUp, "pending")).toBe("wh_1");
    const plan = planSettlement(giveUp, "pending", enabled);
    expect(plan.result).toEqual({ wasPending: true, status: "failed" });
    expect(plan.job).toMatchObject({ status: "failed", finishedAt: NOW });
    expect(plan.disableWebhook).toEqual({ webhookId: "wh_1", reason: "failing", updatedAt: NOW });
    expect(plan.alert!.row).toMatchObject({
      accountId: "acc_1",
      kind: "webhook_disabled",
      recipient: "owner@example.com",
      subject: alert.subject,
      createdAt: NOW,
    });
    expect(plan.alert!.job).toMatchObject({ kind: EMAIL_JOB, lane: EMAIL_LANE, payload: { alert_id: plan.alert!.row.id } });
  });

  test("a webhook already disabled (or gone) is left alone and nobody is alerted twice", () => {
    for (const webhook of [{ ...enabled, status: "disabled" }, null]) {
      const plan = planSettlement(giveUp, "pending", webhook);
      expect(plan.job).toMatchObject({ status: "failed" });
      expect(plan.disableWebhook).toBeUndefined();
      expect(plan.alert).toBeUndefined();
    }
  });

  test("an owner that is gone: the webhook is disabled without an alert", () => {
    const plan = planSettlement(giveUp, "pending", { ...enabled, ownerEmail: null });
    expect(plan.disableWebhook).toBeDefined();
    expect(plan.alert).toBeUndefined();
  });

  test("a job canceled or deleted while its attempt ran keeps its state; only the attempt is logged", () => {
    expect(webhookToRead(giveUp, "canceled")).toBeUndefined();
    const canceled = planSettlement(giveUp, "canceled", enabled);
    expect(canceled.result).toEqual({ wasPending: false, status: "canceled" });
    expect(canceled.job).toBeUndefined();
    expect(canceled.disableWebhook).toBeUndefined();
    expect(canceled.deliveryAttempt).toBe(attempt);
    expect(planSettlement(retry, null, null).result).toEqual({ wasPending: false, status: "canceled" });
    expect(planSettlement(retry, "succeeded", null).result).toEqual({ wasPending: false, status: "succeeded" });
  });

  test("an email job's alert row is updated only while the job was pending", () => {
    const emailAlert = { alertId: "eml_1", state: "sent" as const, attempts: 1, lastError: null, nextAttemptAt: null, sentAt: NOW };
    const sent: JobSettlement = { jobId: "job_2", now: NOW, status: "succeeded", runAt: NOW, lastError: null, emailAlert };
    expect(planSettlement(sent, "pending", null).emailAlert).toEqual({ ...emailAlert, updatedAt: NOW });
    expect(planSettlement(sent, "canceled", null).emailAlert).toBeUndefined();
  });
});
