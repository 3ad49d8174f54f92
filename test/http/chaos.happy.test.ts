/**
 * docs/webhooks.md#webhook-chaos, webhook chaos: per merchant in a scenario (rates) and per replay.
 * Rate 1 is every delivery, 0 none; each affected delivery is marked in the journal.
 */
import { afterEach, describe, expect, it } from "vitest";
import { decideChaos } from "../../src/webhooks/chaos.js";
import { checksum } from "../../src/webhooks/signer.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { enqueueCard } from "../unit/webhooks.support.js";
import { cardPaymentBody } from "./payments.body.js";

let s: TestSandbox;
let receiver: Receiver;
afterEach(async () => {
  await s?.close();
  await receiver?.close();
});

const MERCHANT = {
  merchantKey: "chaos_key",
  merchantSecret: "chaos_secret",
  mid: "chaos-mid",
  merchantId: 9101,
  accountId: 9201,
};

async function setup(webhookChaos?: Record<string, unknown>) {
  s = makeSandbox();
  receiver = await startReceiver();
  const res = await s.http
    .post("/_sandbox/scenarios")
    .send({ name: "chaos", merchants: [{ ...MERCHANT, ...(webhookChaos ? { webhookChaos } : {}) }] });
  expect(res.status).toBe(200);
  const token = await s.token(MERCHANT.merchantKey, MERCHANT.merchantSecret);
  const pay = async () => {
    const r = await s.http
      .post("/api/v1/payments/card")
      .set("authorization", token)
      .send(cardPaymentBody({ mid: MERCHANT.mid, callbackUrl: `${receiver.url}/hooks` }));
    expect(r.status).toBe(200);
    return r.body.transactionId as string;
  };
  return { pay };
}

const rightSignature = (raw: string) => checksum("card_payment", JSON.parse(raw), MERCHANT.merchantSecret);

describe("webhook chaos from a scenario's merchants[].webhookChaos", () => {
  it("duplicate: 1 → every delivery arrives twice, same body, signature and delivery id; both marked", async () => {
    const { pay } = await setup({ duplicate: 1 });
    const tx = await pay();
    await s.ctx.work.runUntil();
    expect(receiver.received).toHaveLength(2);
    const [a, b] = receiver.received;
    expect(b!.raw).toBe(a!.raw);
    expect(b!.headers["x-checksum"]).toBe(a!.headers["x-checksum"]);
    expect(a!.headers["x-checksum"]).toBe(rightSignature(a!.raw));
    expect(b!.headers["x-sandbox-delivery-id"]).toBe(a!.headers["x-sandbox-delivery-id"]);
    const journal = (await s.http.get("/_sandbox/webhooks").query({ transactionId: tx })).body;
    expect(journal.map((e: { chaos: string }) => e.chaos)).toEqual(["duplicate", "duplicate"]);
  });

  it("badSignature: 1 → X-Checksum is not the merchant's HMAC of the body; a plain replay is signed right again", async () => {
    const { pay } = await setup({ badSignature: 1 });
    const tx = await pay();
    await s.ctx.work.runUntil();
    const hook = receiver.received[0]!;
    expect(hook.headers["x-checksum"]).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(hook.headers["x-checksum"]).not.toBe(rightSignature(hook.raw));
    const [entry] = (await s.http.get("/_sandbox/webhooks").query({ transactionId: tx })).body;
    expect(entry.chaos).toBe("badSignature");
    const replay = await s.http.post(`/_sandbox/webhooks/${entry.id}/replay`);
    expect(replay.status).toBe(201);
    expect(replay.body.chaos).toBeNull();
    await s.ctx.work.runUntil();
    expect(receiver.received[1]!.headers["x-checksum"]).toBe(rightSignature(receiver.received[1]!.raw));
  });

  it("delay: 1 with delayBy PT10M → nothing until ten virtual minutes have passed", async () => {
    const { pay } = await setup({ delay: 1, delayBy: "PT10M" });
    const tx = await pay();
    await s.ctx.work.runUntil();
    expect(receiver.received).toHaveLength(0);
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT9M59S" });
    expect(receiver.received).toHaveLength(0);
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT1S" });
    expect(receiver.received).toHaveLength(1);
    const [entry] = (await s.http.get("/_sandbox/webhooks").query({ transactionId: tx })).body;
    expect(entry).toMatchObject({ chaos: "delay", status: "delivered" });
  });

  it("rate 0 → never; rates in between are a stable share decided by the delivery id", async () => {
    const { pay } = await setup({ duplicate: 0, badSignature: 0 });
    await pay();
    await s.ctx.work.runUntil();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers["x-checksum"]).toBe(rightSignature(receiver.received[0]!.raw));
    const ids = Array.from({ length: 1000 }, (_, i) => `wh_${i}`);
    const hit = ids.filter((id) => decideChaos({ duplicate: 0.3 }, id) === "duplicate");
    expect(hit.length).toBeGreaterThan(220);
    expect(hit.length).toBeLessThan(380);
    expect(ids.filter((id) => decideChaos({ duplicate: 0.3 }, id) === "duplicate")).toEqual(hit);
  });

  it("reorder: 1 → the transaction's next delivery goes out first; the held one follows", async () => {
    await setup({ reorder: 1 });
    const merchant = s.ctx.merchants.byKey(MERCHANT.merchantKey)!;
    enqueueCard(s.ctx, receiver.url, "tx_ro", "PROCESSING", { merchant });
    await s.ctx.work.runUntil();
    expect(receiver.received).toHaveLength(0); // held for the next one
    enqueueCard(s.ctx, receiver.url, "tx_ro", "SUCCEED", { merchant });
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT1S" });
    expect(receiver.received.map((h) => (h.body as { transactionStatus: string }).transactionStatus)).toEqual([
      "SUCCEED",
      "PROCESSING",
    ]);
    const journal = (await s.http.get("/_sandbox/webhooks").query({ transactionId: "tx_ro" })).body;
    expect(journal.map((e: { eventStatus: string; chaos: string | null }) => [e.eventStatus, e.chaos])).toEqual([
      ["SUCCEED", null],
      ["PROCESSING", "reorder"],
    ]);
  });

  it("a rate outside 0..1 or an unknown mode is a 400 naming the path", async () => {
    s = makeSandbox();
    for (const webhookChaos of [{ duplicate: 2 }, { shuffle: 1 }, { delay: 1, delayBy: "soon" }]) {
      const res = await s.http.post("/_sandbox/scenarios").send({ name: "bad", merchants: [{ ...MERCHANT, webhookChaos }] });
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toMatch(/merchants\.0\.webhookChaos/);
    }
  });
});

describe("webhook chaos on replay", () => {
  it('{"chaos": "duplicate" | "badSignature" | "delay"} applies to that replay only and is marked', async () => {
    const { pay } = await setup();
    const tx = await pay();
    await s.ctx.work.runUntil();
    const [original] = (await s.http.get("/_sandbox/webhooks").query({ transactionId: tx })).body;
    expect(original.chaos).toBeNull();

    const dup = await s.http.post(`/_sandbox/webhooks/${original.id}/replay`).send({ chaos: "duplicate" });
    expect(dup.status).toBe(201);
    expect(dup.body.chaos).toBe("duplicate");
    await s.ctx.work.runUntil();
    expect(receiver.received).toHaveLength(3);

    const bad = await s.http.post(`/_sandbox/webhooks/${original.id}/replay`).send({ chaos: "badSignature" });
    await s.ctx.work.runUntil();
    expect(bad.body.chaos).toBe("badSignature");
    expect(receiver.received[3]!.headers["x-checksum"]).not.toBe(rightSignature(receiver.received[3]!.raw));

    const late = await s.http.post(`/_sandbox/webhooks/${original.id}/replay`).send({ chaos: "delay", delay: "PT2H" });
    expect(late.body).toMatchObject({ chaos: "delay", nextAttemptAt: new Date(s.clock.nowMs() + 2 * 3_600_000).toISOString() });

    const wrong = await s.http.post(`/_sandbox/webhooks/${original.id}/replay`).send({ chaos: "shuffle" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errorMessage).toMatch(/chaos/);
  });
});
