import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { enableGroupCommit } from "../../src/db/commit.js";
import { ofTransaction, webhookDeliveries } from "../../src/db/schema/index.js";
import type { SubscriptionCallback } from "../../src/modules/subscriptions/subscriptions.wire.js";
import { sandboxWithReceiver, T0, type TestSandbox } from "../helpers/harness.js";
import type { Receiver } from "../helpers/receiver.js";
import { closedPortUrl, enqueueCard } from "../unit/webhooks.support.js";
import { cardPaymentBody } from "./payments.body.js";

let s: TestSandbox;
let receiver: Receiver;
let close: () => Promise<void>;

beforeEach(async () => {
  ({ s, receiver, close } = await sandboxWithReceiver());
});

afterEach(() => close());

const iso = (ms: number) => new Date(ms).toISOString();

function enqueueSubscriptionCharge(sub: string, tx: string, status: string) {
  const merchant = s.ctx.merchants.byKey("sandbox_merchant_key")!;
  return s.ctx.outbox.enqueue({
    merchant,
    kind: "subscription_charge",
    callbackUrl: `${receiver.url}/subs`,
    paymentMethod: "card",
    transactionId: tx,
    subscriptionId: sub,
    orderKey: sub,
    eventStatus: status,
    body: {
      subscriptionId: sub,
      transactionId: tx,
      chargeDate: "2026-01-15",
      amount: 9.99,
      currency: "EUR",
      transactionStatus: status === "FAILED" ? "FAILED" : "SUCCEED",
      declineCode: status === "FAILED" ? 5 : null,
      declineReason: status === "FAILED" ? "INSUFFICIENT_FUNDS_ERROR" : null,
      failureCount: status === "FAILED" ? 1 : 0,
      nextChargeDate: "2026-02-15",
      metadata: null,
    } satisfies SubscriptionCallback,
  })!;
}

describe("GET /_sandbox/webhooks", () => {
  it("lists deliveries newest first in the journal shape", async () => {
    receiver.respondWith(500);
    const first = enqueueCard(s.ctx, `${receiver.url}/hooks?shop=1`, "tx_1", "PROCESSING");
    const second = enqueueCard(s.ctx, `${receiver.url}/hooks?shop=1`, "tx_1", "SUCCEED");
    await s.ctx.work.runUntil();

    const res = await s.http.get("/_sandbox/webhooks");
    expect(res.status).toBe(200);
    expect(res.body.map((e: { id: string }) => e.id)).toEqual([second, first]);
    expect(res.body[1]).toEqual({
      id: first,
      kind: "card_payment",
      url: `${receiver.url}/hooks?shop=1&paymentMethod=card`,
      headers: {
        "Content-Type": "application/json",
        "X-Checksum": expect.any(String),
        "X-Sandbox-Delivery-Id": first,
      },
      body: expect.objectContaining({
        transactionId: "tx_1",
        requestId: "req-tx_1",
        mid: "sandbox-mid-001",
        transactionStatus: "PROCESSING",
        orderAmount: 20.5,
        orderCurrency: "USD",
      }),
      status: "pending",
      transactionId: "tx_1",
      subscriptionId: null,
      eventStatus: "PROCESSING",
      createdAt: iso(T0),
      nextAttemptAt: iso(T0 + 120_000),
      replayOf: null,
      chaos: null,
      attempts: [{ at: iso(T0), httpStatus: 500, error: null }],
    });
    // waiting behind the first: no due time of its own yet
    expect(res.body[0]).toMatchObject({ status: "pending", nextAttemptAt: null, attempts: [] });
  });

  it("filters by transactionId, subscriptionId, status and limit", async () => {
    const a = enqueueCard(s.ctx, await closedPortUrl(), "tx_a"); // refused: stays pending
    const b1 = enqueueCard(s.ctx, receiver.url, "tx_b", "PROCESSING");
    const b2 = enqueueCard(s.ctx, receiver.url, "tx_b", "SUCCEED");
    const c = enqueueSubscriptionCharge("sub_1", "tx_c", "SUCCEED");
    const d = enqueueSubscriptionCharge("sub_2", "tx_d", "FAILED");
    await s.ctx.work.runUntil();

    const ids = async (query: string) => {
      const res = await s.http.get(`/_sandbox/webhooks${query}`);
      expect(res.status).toBe(200);
      return res.body.map((e: { id: string }) => e.id);
    };
    expect(await ids("")).toEqual([d, c, b2, b1, a]);
    expect(await ids("?transactionId=tx_b")).toEqual([b2, b1]);
    expect(await ids("?subscriptionId=sub_1")).toEqual([c]);
    expect(await ids("?transactionId=tx_d&subscriptionId=sub_2")).toEqual([d]);
    expect(await ids("?transactionId=tx_d&subscriptionId=sub_1")).toEqual([]);
    expect(await ids("?status=pending")).toEqual([a]);
    expect(await ids("?status=delivered")).toEqual([d, c, b2, b1]);
    expect(await ids("?status=failed")).toEqual([]);
    expect(await ids("?limit=2")).toEqual([d, c]);
    expect(await ids("?status=delivered&limit=1")).toEqual([d]);
    expect(await ids("?transactionId=tx_unknown")).toEqual([]);
  });

  it("answers at most 100 by default and up to 1000 when asked", async () => {
    for (let i = 0; i < 150; i++) enqueueCard(s.ctx, receiver.url, `tx_${i}`);
    expect((await s.http.get("/_sandbox/webhooks")).body).toHaveLength(100);
    expect((await s.http.get("/_sandbox/webhooks?limit=1000")).body).toHaveLength(150);
  });

  it("reading the journal changes nothing", async () => {
    enqueueCard(s.ctx, receiver.url, "tx_r");
    // the enqueue wakes the dispatcher: let that one delivery finish first
    await s.ctx.work.runUntil();
    expect(receiver.received).toHaveLength(1);
    const a = await s.http.get("/_sandbox/webhooks");
    const b = await s.http.get("/_sandbox/webhooks");
    expect(b.body).toEqual(a.body);
    expect(receiver.received).toHaveLength(1);
  });

  it("finds a transaction's deliveries by both indexes: its own, a replay's and a subscription charge's, with no table scan", async () => {
    const own = enqueueCard(s.ctx, receiver.url, "tx_ix");
    const charge = enqueueSubscriptionCharge("sub_ix", "tx_ix_charge", "SUCCEED");
    await s.ctx.work.runUntil();
    const replay = (await s.http.post(`/_sandbox/webhooks/${own}/replay`).expect(201)).body.id as string;
    await s.ctx.work.runUntil();
    const ids = async (tx: string) =>
      (await s.http.get(`/_sandbox/webhooks?transactionId=${tx}`).expect(200)).body.map((e: { id: string }) => e.id);
    expect(await ids("tx_ix")).toEqual([replay, own]);
    expect(await ids("tx_ix_charge")).toEqual([charge]);
    const sqlite = s.ctx.db.$client;
    // the transaction index holds only the deliveries not keyed by their transaction (the replay,
    // the charge keyed by its subscription): a payment's own delivery writes no page of it
    const cells = sqlite.prepare("SELECT sum(ncell) FROM dbstat WHERE name = 'webhook_tx_idx' AND pagetype = 'leaf'").pluck();
    expect(cells.get()).toBe(2);
    // the journal's condition, as the repo renders it, answered by both indexes
    const q = s.ctx.db.select().from(webhookDeliveries).where(ofTransaction("tx_ix")).toSQL();
    const plan = sqlite
      .prepare(`EXPLAIN QUERY PLAN ${q.sql}`)
      .all(...q.params)
      .map((r) => (r as { detail: string }).detail);
    expect(plan.join("; ")).toMatch(/MULTI-INDEX OR.*webhook_order_idx.*webhook_tx_idx/);
  });
});

describe("POST /_sandbox/clock/advance and deliveries", () => {
  it("answers after the retries due by the target were attempted, and counts them", async () => {
    receiver.respondWith(500, 500);
    enqueueCard(s.ctx, receiver.url, "tx_adv");
    await s.ctx.work.runUntil();
    expect(receiver.received).toHaveLength(1);

    const early = await s.http.post("/_sandbox/clock/advance").send({ by: "PT1M59S" });
    expect(early.body.ran.deliveries).toBe(0);
    expect(receiver.received).toHaveLength(1);

    const res = await s.http.post("/_sandbox/clock/advance").send({ by: "PT10M" });
    expect(res.status).toBe(200);
    expect(res.body.ran.deliveries).toBe(2); // +2 min (500) and +6 min (200)
    expect(receiver.received.map((h) => h.headers["x-sandbox-attempt"])).toEqual(["1", "2", "3"]);
    const [entry] = (await s.http.get("/_sandbox/webhooks")).body;
    expect(entry.status).toBe("delivered");
    expect(entry.attempts.map((a: { at: string }) => a.at)).toEqual([iso(T0), iso(T0 + 120_000), iso(T0 + 360_000)]);
  });

  it("reset drops every delivery", async () => {
    enqueueCard(s.ctx, receiver.url, "tx_reset");
    await s.http.post("/_sandbox/reset").expect(200);
    expect((await s.http.get("/_sandbox/webhooks")).body).toEqual([]);
    expect(s.ctx.webhooks.nextDueAt()).toBeUndefined();
  });
});

describe("POST /_sandbox/webhooks/{id}/replay", () => {
  it("sends the delivery again as a new delivery with the same url, body and signature", async () => {
    const original = enqueueCard(s.ctx, `${receiver.url}/hooks?shop=1`, "tx_rp");
    await s.ctx.work.runUntil();
    expect(receiver.received).toHaveLength(1);

    const res = await s.http.post(`/_sandbox/webhooks/${original}/replay`);
    expect(res.status).toBe(201);
    const replay = res.body;
    expect(replay.id).not.toBe(original);
    expect(replay).toMatchObject({ replayOf: original, status: "pending", transactionId: "tx_rp", attempts: [] });

    await receiver.waitFor(2);
    await s.ctx.work.runUntil(); // settles: the answer is recorded (it comes back from the sender thread)
    const [first, second] = receiver.received;
    expect(second!.raw).toBe(first!.raw);
    expect(second!.path).toBe("/hooks");
    expect(Object.fromEntries(second!.query)).toEqual({ shop: "1", paymentMethod: "card" });
    expect(second!.headers["x-checksum"]).toBe(first!.headers["x-checksum"]);
    expect(second!.headers["x-sandbox-delivery-id"]).toBe(replay.id);
    expect(second!.headers["x-sandbox-attempt"]).toBe("1");

    const journal = (await s.http.get("/_sandbox/webhooks?transactionId=tx_rp")).body;
    expect(journal.map((e: { id: string; status: string }) => [e.id, e.status])).toEqual([
      [replay.id, "delivered"],
      [original, "delivered"],
    ]);
  });

  it("is not held back by deliveries still pending for the same transaction", async () => {
    receiver.respondWith(500);
    const first = enqueueCard(s.ctx, receiver.url, "tx_held", "PROCESSING");
    enqueueCard(s.ctx, receiver.url, "tx_held", "SUCCEED");
    await s.ctx.work.runUntil(); // first fails, second waits behind it

    const res = await s.http.post(`/_sandbox/webhooks/${first}/replay`).expect(201);
    await receiver.waitFor(2);
    expect(receiver.received[1]!.headers["x-sandbox-delivery-id"]).toBe(res.body.id);
    expect((receiver.received[1]!.body as { transactionStatus: string }).transactionStatus).toBe("PROCESSING");
    await s.ctx.work.idle();
    expect(receiver.received).toHaveLength(2); // the originals still wait for the retry
  });

  it("replays a failed delivery", async () => {
    receiver.defaultStatus = 500;
    const id = enqueueCard(s.ctx, receiver.url, "tx_dead");
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT2H" }).expect(200);
    expect((await s.http.get(`/_sandbox/webhooks?status=failed`)).body.map((e: { id: string }) => e.id)).toEqual([id]);
    receiver.defaultStatus = 200;
    const res = await s.http.post(`/_sandbox/webhooks/${id}/replay`).expect(201);
    await receiver.waitFor(7);
    await s.ctx.work.runUntil(); // settles: the answer is recorded
    const [entry] = (await s.http.get(`/_sandbox/webhooks?limit=1`)).body;
    expect(entry).toMatchObject({ id: res.body.id, replayOf: id, status: "delivered" });
  });
});

describe("OpenAPI", () => {
  it("documents the journal and replay under the control-plane tag", async () => {
    const doc = (await s.http.get("/openapi.json")).body;
    const list = doc.paths["/_sandbox/webhooks"]?.get;
    const replay = doc.paths["/_sandbox/webhooks/{id}/replay"]?.post;
    expect(list.tags).toEqual(["Sandbox control plane"]);
    expect(replay.tags).toEqual(["Sandbox control plane"]);
    expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      "limit",
      "status",
      "subscriptionId",
      "transactionId",
    ]);
    expect(Object.keys(replay.responses)).toEqual(expect.arrayContaining(["201", "404"]));
    expect(doc.components.schemas.WebhookDelivery).toBeDefined();
  });
});

describe("a webhook leaves on its own", () => {
  // no runUntil, no clock tick: the enqueue itself wakes the dispatcher
  for (const grouped of [false, true]) {
    it(`right after the payment's commit${grouped ? ", claimed inside the group commit of its request" : ""}`, async () => {
      if (grouped) enableGroupCommit(s.ctx.db.$client);
      const token = await s.token();
      const res = await s.http
        .post("/api/v1/payments/card")
        .set("authorization", token)
        .send(cardPaymentBody({ callbackUrl: `${receiver.url}/hooks` }));
      expect(res.status).toBe(200);
      await receiver.waitFor(1);
      expect(receiver.received[0]!.headers["x-sandbox-attempt"]).toBe("1");
      expect((receiver.received[0]!.body as { transactionId: string }).transactionId).toBe(res.body.transactionId);
      await s.ctx.work.runUntil(); // settles: the answer is recorded
      const [entry] = (await s.http.get(`/_sandbox/webhooks?transactionId=${res.body.transactionId}`)).body;
      expect(entry).toMatchObject({ status: "delivered", attempts: [{ httpStatus: 200 }] });
    });
  }
});

describe("the journal keeps up with the receiver", () => {
  // a test that saw its webhook arrive (and answered) asks the journal at once: never "pending"
  for (const grouped of [false, true]) {
    it(`shows the attempt as soon as its answer is read, 20 of 20${grouped ? " (group commit)" : ""}`, async () => {
      if (grouped) enableGroupCommit(s.ctx.db.$client);
      const token = await s.token();
      for (let i = 0; i < 20; i++) {
        const res = await s.http
          .post("/api/v1/payments/card")
          .set("authorization", token)
          .send(cardPaymentBody({ callbackUrl: `${receiver.url}/hooks` }));
        await receiver.waitFor(i + 1);
        const journal = await s.http.get(`/_sandbox/webhooks?status=delivered&transactionId=${res.body.transactionId}`);
        expect(journal.body).toMatchObject([{ status: "delivered", attempts: [{ httpStatus: 200 }] }]);
      }
    });
  }
});
