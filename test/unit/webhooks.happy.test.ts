import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inTransaction } from "../../src/db/client.js";
import { committed, enableGroupCommit } from "../../src/db/commit.js";
import { T0 } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { enqueueCard, MINUTE, makeCtx, type TestCtx } from "./webhooks.support.js";

let t: TestCtx;
let receiver: Receiver;

beforeEach(async () => {
  t = makeCtx();
  receiver = await startReceiver();
});

afterEach(async () => {
  await t.close();
  await receiver.close();
});

const attemptsOf = (hooks: Receiver["received"]) => hooks.map((h) => h.headers["x-sandbox-attempt"]);

describe("webhook dispatcher: delivery", () => {
  it("delivers a due webhook on the first try, with the stored headers and X-Sandbox-Attempt 1", async () => {
    const id = enqueueCard(t.ctx, `${receiver.url}/hooks`, "tx_1");
    expect(t.ctx.webhooks.nextDueAt()).toBe(T0);

    const ran = await t.ctx.work.runUntil();

    expect(ran.deliveries).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const hook = receiver.received[0]!;
    expect(hook.method).toBe("POST");
    expect(hook.path).toBe("/hooks");
    expect(hook.query.get("paymentMethod")).toBe("card");
    expect(hook.headers["content-type"]).toBe("application/json");
    expect(hook.headers["x-sandbox-delivery-id"]).toBe(id);
    expect(hook.headers["x-sandbox-attempt"]).toBe("1");
    expect(hook.headers["x-checksum"]).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(hook.body).toMatchObject({ transactionId: "tx_1", transactionStatus: "SUCCEED", orderAmount: 20.5 });

    const [entry] = t.ctx.journal.list({ limit: 10 });
    expect(entry).toMatchObject({
      id,
      status: "delivered",
      nextAttemptAt: null,
      attempts: [{ at: new Date(T0).toISOString(), httpStatus: 200, error: null }],
    });
    expect(t.ctx.webhooks.nextDueAt()).toBeUndefined();
  });

  it("a poke after enqueueing sends it without anyone advancing the clock", async () => {
    enqueueCard(t.ctx, receiver.url, "tx_poke");
    t.ctx.work.poke();
    await receiver.waitFor(1);
    expect(receiver.received[0]!.headers["x-sandbox-attempt"]).toBe("1");
  });

  it("retries a 500 two virtual minutes later, not before, as attempt 2", async () => {
    receiver.respondWith(500);
    enqueueCard(t.ctx, receiver.url, "tx_2");

    await t.ctx.work.runUntil();
    expect(receiver.received).toHaveLength(1);
    expect(t.ctx.webhooks.nextDueAt()).toBe(T0 + 2 * MINUTE);

    await t.ctx.work.runUntil(T0 + 2 * MINUTE - 1);
    expect(receiver.received).toHaveLength(1);

    const ran = await t.ctx.control.advance({ by: "PT0.001S" });
    expect(ran.ran.deliveries).toBe(1);
    expect(attemptsOf(receiver.received)).toEqual(["1", "2"]);
    // the same delivery, signed the same way
    expect(receiver.received[1]!.headers["x-sandbox-delivery-id"]).toBe(receiver.received[0]!.headers["x-sandbox-delivery-id"]);
    expect(receiver.received[1]!.headers["x-checksum"]).toBe(receiver.received[0]!.headers["x-checksum"]);
    expect(receiver.received[1]!.raw).toBe(receiver.received[0]!.raw);

    const [entry] = t.ctx.journal.list({ limit: 1 });
    expect(entry!.status).toBe("delivered");
    expect(entry!.attempts).toEqual([
      { at: new Date(T0).toISOString(), httpStatus: 500, error: null },
      { at: new Date(T0 + 2 * MINUTE).toISOString(), httpStatus: 200, error: null },
    ]);
  });

  it("any 2xx is a success", async () => {
    receiver.respondWith(204, 202);
    enqueueCard(t.ctx, receiver.url, "tx_a");
    enqueueCard(t.ctx, receiver.url, "tx_b");
    await t.ctx.work.runUntil();
    expect(t.ctx.journal.list({ limit: 10 }).map((e) => e.status)).toEqual(["delivered", "delivered"]);
  });

  it("keeps the callbackUrl's own query and adds paymentMethod (and apmType for APM)", async () => {
    enqueueCard(t.ctx, `${receiver.url}/cb?shop=42&x=a%20b`, "tx_q");
    const merchant = t.ctx.merchants.byKey("sandbox_merchant_key")!;
    t.ctx.outbox.enqueue({
      merchant,
      kind: "apm_payment",
      callbackUrl: `${receiver.url}/apm?order=7`,
      paymentMethod: "apm",
      apmType: "UPI_QR",
      transactionId: "tx_apm",
      eventStatus: "PENDING",
      body: { accountId: 2001, orderAmount: 10, orderCurrency: "INR", transactionId: "tx_apm" },
    });
    await t.ctx.work.runUntil();

    const card = receiver.received.find((h) => h.path === "/cb")!;
    expect(Object.fromEntries(card.query)).toEqual({ shop: "42", x: "a b", paymentMethod: "card" });
    const apm = receiver.received.find((h) => h.path === "/apm")!;
    expect(Object.fromEntries(apm.query)).toEqual({ order: "7", paymentMethod: "apm", apmType: "UPI_QR" });
  });
});

describe("webhook dispatcher: ordering", () => {
  it("holds a transaction's second webhook until its first succeeds, even across a retry", async () => {
    receiver.respondWith(500);
    const first = enqueueCard(t.ctx, receiver.url, "tx_o", "PROCESSING");
    const second = enqueueCard(t.ctx, receiver.url, "tx_o", "SUCCEED");

    await t.ctx.work.runUntil();
    expect(receiver.received.map((h) => h.headers["x-sandbox-delivery-id"])).toEqual([first]);
    // the second is not due on its own: the next due time is the first one's retry
    expect(t.ctx.webhooks.nextDueAt()).toBe(T0 + 2 * MINUTE);
    const waiting = t.ctx.journal.list({ limit: 10 }).find((e) => e.id === second)!;
    expect(waiting).toMatchObject({ status: "pending", nextAttemptAt: null, attempts: [] });

    await t.ctx.work.runUntil(T0 + 2 * MINUTE - 1);
    expect(receiver.received).toHaveLength(1);

    const ran = await t.ctx.work.runUntil(T0 + 2 * MINUTE);
    expect(ran.deliveries).toBe(2);
    expect(receiver.received.map((h) => [h.headers["x-sandbox-delivery-id"], h.headers["x-sandbox-attempt"]])).toEqual([
      [first, "1"],
      [first, "2"],
      [second, "1"],
    ]);
    expect(receiver.received.map((h) => (h.body as { transactionStatus: string }).transactionStatus)).toEqual([
      "PROCESSING",
      "PROCESSING",
      "SUCCEED",
    ]);
    expect(t.ctx.webhooks.nextDueAt()).toBeUndefined();
  });

  it("a later webhook of the key goes out once the earlier one has finally failed", async () => {
    receiver.defaultStatus = 500;
    enqueueCard(t.ctx, receiver.url, "tx_f", "PROCESSING");
    enqueueCard(t.ctx, receiver.url, "tx_f", "SUCCEED");
    await t.ctx.control.advance({ by: "PT62M" });
    const statuses = receiver.received.map((h) => (h.body as { transactionStatus: string }).transactionStatus);
    expect(statuses).toEqual([...Array(6).fill("PROCESSING"), "SUCCEED"]);
  });

  it("a key waiting for a retry does not hold other keys back", async () => {
    receiver.respondWith(500);
    enqueueCard(t.ctx, receiver.url, "tx_slow");
    enqueueCard(t.ctx, receiver.url, "tx_slow", "REFUNDED");
    await t.ctx.work.runUntil();
    enqueueCard(t.ctx, receiver.url, "tx_other");
    await t.ctx.work.runUntil();
    expect(receiver.received.map((h) => (h.body as { transactionId: string }).transactionId)).toEqual(["tx_slow", "tx_other"]);
  });

  it("sends many keys concurrently and each key in order", async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `tx_${i}`);
    for (const status of ["PENDING", "PROCESSING", "SUCCEED"]) for (const k of keys) enqueueCard(t.ctx, receiver.url, k, status);
    const ran = await t.ctx.work.runUntil();
    expect(ran.deliveries).toBe(120);
    for (const k of keys) {
      const seen = receiver.received
        .filter((h) => (h.body as { transactionId: string }).transactionId === k)
        .map((h) => (h.body as { transactionStatus: string }).transactionStatus);
      expect(seen).toEqual(["PENDING", "PROCESSING", "SUCCEED"]);
    }
    expect(t.ctx.webhooks.nextDueAt()).toBeUndefined();
  });
});

// The server runs with group commit on (src/db/commit.ts): there the outbox hands a new webhook
// straight to the dispatcher, written in flight, sent after the batch's COMMIT (docs/performance.md).
describe("webhook dispatcher: inside a group-commit batch (the server)", () => {
  const payment = (tx: string) => () => enqueueCard(t.ctx, `${receiver.url}/hooks`, tx);

  it("a webhook enqueued in a batch is placed at its COMMIT and sent right after it, as attempt 1", async () => {
    enableGroupCommit(t.ctx.db.$client);
    const id = inTransaction(t.ctx.db, payment("tx_g1"));
    expect(t.ctx.webhooks.inFlight).toBe(0); // written waiting for the sender: the commit places it
    expect(t.ctx.webhooks.nextDueAt()).toBeUndefined(); // no due time: nothing for a claim
    await committed(t.ctx.db.$client);
    expect(t.ctx.webhooks.inFlight).toBe(1); // in flight from the COMMIT on, with no claim query
    await receiver.waitFor(1);
    expect(receiver.received[0]!.headers["x-sandbox-attempt"]).toBe("1");
    expect(receiver.received[0]!.headers["x-sandbox-delivery-id"]).toBe(id);
    await t.ctx.work.runUntil();
    expect(t.ctx.journal.get(id)).toMatchObject({
      status: "delivered",
      attempts: [{ at: new Date(T0).toISOString(), httpStatus: 200 }],
    });
    expect(t.ctx.webhooks.inFlight).toBe(0);
  });

  it("a request that rolls back after enqueueing takes its webhook with it, whatever comes after it in the batch", async () => {
    enableGroupCommit(t.ctx.db.$client);
    const declinedAfter = (tx: string) => () => {
      payment(tx)();
      throw new Error("declined after the enqueue");
    };
    const kept = inTransaction(t.ctx.db, payment("tx_kept"));
    expect(() => inTransaction(t.ctx.db, declinedAfter("tx_gone"))).toThrow("declined");
    // its seq is free again: the next row takes it
    expect(() => inTransaction(t.ctx.db, declinedAfter("tx_gone2"))).toThrow("declined");
    const after = inTransaction(t.ctx.db, payment("tx_after"));
    await committed(t.ctx.db.$client);
    await receiver.waitFor(2);
    await t.ctx.work.runUntil();
    expect(receiver.received.map((h) => (h.body as { transactionId: string }).transactionId).sort()).toEqual([
      "tx_after",
      "tx_kept",
    ]);
    expect(
      t.ctx.journal
        .list({ limit: 10 })
        .map((e) => e.id)
        .sort(),
    ).toEqual([after, kept].sort());
    expect(t.ctx.journal.list({ limit: 10 }).every((e) => e.status === "delivered")).toBe(true);
    expect(t.ctx.webhooks.inFlight).toBe(0);
  });

  it("a batch's last request rolled back after enqueueing: its webhook is never sent", async () => {
    enableGroupCommit(t.ctx.db.$client);
    const kept = inTransaction(t.ctx.db, payment("tx_kept"));
    expect(() =>
      inTransaction(t.ctx.db, () => {
        payment("tx_gone")();
        throw new Error("declined after the enqueue");
      }),
    ).toThrow("declined");
    await committed(t.ctx.db.$client);
    await receiver.waitFor(1);
    await t.ctx.work.runUntil();
    expect(receiver.received.map((h) => (h.body as { transactionId: string }).transactionId)).toEqual(["tx_kept"]);
    expect(t.ctx.journal.list({ limit: 10 }).map((e) => [e.id, e.status])).toEqual([[kept, "delivered"]]);
    expect(t.ctx.webhooks.inFlight).toBe(0);
  });

  it("a request rolled back before any webhook of the batch was taken holds none of them back", async () => {
    enableGroupCommit(t.ctx.db.$client);
    expect(() =>
      inTransaction(t.ctx.db, () => {
        throw new Error("declined before any enqueue");
      }),
    ).toThrow("declined");
    const first = inTransaction(t.ctx.db, payment("tx_r1"));
    const second = inTransaction(t.ctx.db, payment("tx_r2"));
    await committed(t.ctx.db.$client);
    await receiver.waitFor(2);
    await t.ctx.work.runUntil();
    expect(
      t.ctx.journal
        .list({ limit: 10 })
        .map((e) => [e.id, e.status])
        .sort(),
    ).toEqual(
      [
        [first, "delivered"],
        [second, "delivered"],
      ].sort(),
    );
    expect(t.ctx.webhooks.inFlight).toBe(0);
  });

  it("a batch whose COMMIT fails sends nothing", async () => {
    enableGroupCommit(t.ctx.db.$client);
    inTransaction(t.ctx.db, payment("tx_lost"));
    const done = committed(t.ctx.db.$client);
    t.ctx.db.$client.prepare("ROLLBACK").run(); // what SQLite does to a batch a statement error aborted
    await expect(done).rejects.toThrow();
    await t.ctx.work.runUntil();
    expect(receiver.received).toHaveLength(0);
    expect(t.ctx.webhooks.inFlight).toBe(0);
    expect(t.ctx.journal.list({ limit: 10 })).toHaveLength(0);
  });
});
