import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { transactions, webhookDeliveries } from "../../src/db/schema/index.js";
import { BUILTIN, sandboxWithReceiver, type TestSandbox } from "../helpers/harness.js";
import type { Receiver } from "../helpers/receiver.js";
import { CARDS } from "./payments.body.js";
import { client, payoutBody, verifyStatusSignature } from "./refunds.support.js";

let s: TestSandbox;
let token: string;
let receiver: Receiver;
let api: ReturnType<typeof client>;
let close: () => Promise<void>;

beforeEach(async () => {
  ({ s, token, receiver, close } = await sandboxWithReceiver());
  api = client(s, () => token);
});

afterEach(() => close());

const advance = (by: string) => s.http.post("/_sandbox/clock/advance").send({ by }).expect(200);
const statuses = async () => {
  await s.ctx.work.runUntil();
  return receiver.received.map((h) => (h.body as { transactionStatus: string }).transactionStatus);
};

describe("POST /v1/payouts/card (docs/refunds-payouts.md#card-payouts, docs/webhooks.md, docs/refunds-payouts.md)", () => {
  it("PENDING, then SUCCEED a virtual minute later, with a signed payout callback for each", async () => {
    const res = await api.payout({ callbackUrl: `${receiver.url}/po`, amount: "25.5" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ transactionId: expect.stringMatching(/^po_/), transactionStatus: "PENDING" });
    const id = res.body.transactionId as string;
    await advance("PT1M");
    expect((await api.get(`/v1/payouts/card/status/${id}`)).body).toEqual({ transactionId: id, transactionStatus: "SUCCEED" });
    const info = (await api.get(`/api/v1/payouts/card/info/${id}`)).body;
    expect(info).toEqual({
      transactionId: id,
      requestId: expect.any(String),
      mid: BUILTIN.mid,
      transactionStatus: "SUCCEED",
      declineCode: null,
      cardMask: "411111******1111",
      cardHolder: "Jane Doe",
      totalAmount: 25.5,
      callbackUrl: `${receiver.url}/po`,
      createdAt: "2026-01-15T12:00:00.000Z",
    });
    expect(await statuses()).toEqual(["PENDING", "SUCCEED"]);
    for (const h of receiver.received) {
      expect(h.query.get("paymentMethod")).toBe("card");
      expect(verifyStatusSignature(h)).toBe(true);
      expect(h.body).toEqual({ ...info, transactionStatus: (h.body as { transactionStatus: string }).transactionStatus });
    }
  });

  it("a declining card's payout column → FAILED at once with its declineCode and one callback", async () => {
    const res = await api.payout({
      callbackUrl: `${receiver.url}/po`,
      card: { number: CARDS.declined, cardHolder: "X", expMonth: "12", expYear: "2030" },
    });
    expect(res.body).toEqual({ transactionId: expect.any(String), transactionStatus: "FAILED", declineCode: 2 });
    expect(await statuses()).toEqual(["FAILED"]);
    expect(verifyStatusSignature(receiver.received[0]!)).toBe(true);
  });

  it("a 3DS test card pays out without 3DS (payout column SUCCEED)", async () => {
    const res = await api.payout({ card: { number: CARDS.threeDs, cardHolder: "X", expMonth: "12", expYear: "2030" } });
    expect(res.body.transactionStatus).toBe("PENDING");
  });

  it("`operation: payout` rules fail or delay payouts; payment rules of the same amount do not touch them", async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({
        name: "payout-rules",
        rules: [
          { amount: "13.37", status: "FAILED", declineCode: 5 },
          { amount: "13.37", operation: "payout", status: "FAILED", declineCode: 6 },
          {
            amount: "42.00",
            operation: "payout",
            status: "PENDING",
            completeAfter: "P1D",
            completeWith: "FAILED",
            declineCode: 11,
          },
        ],
      })
      .expect(200);
    expect((await api.payout({ amount: "13.37" })).body).toMatchObject({ transactionStatus: "FAILED", declineCode: 6 });
    const slow = await api.payout({ amount: "42" });
    expect(slow.body.transactionStatus).toBe("PENDING");
    await advance("PT23H");
    expect((await api.get(`/v1/payouts/card/status/${slow.body.transactionId}`)).body.transactionStatus).toBe("PENDING");
    await advance("PT1H");
    expect((await api.get(`/v1/payouts/card/info/${slow.body.transactionId}`)).body).toMatchObject({
      transactionStatus: "FAILED",
      declineCode: 11,
    });
  });

  it("a scenario card declared only with `payment: FAILED` declines as a payout too (its missing column follows payment)", async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({ name: "cards", cards: [{ number: "4242424242424242", payment: { status: "FAILED", declineCode: 5 } }] })
      .expect(200);
    const res = await api.payout({ card: { number: "4242424242424242", cardHolder: "X", expMonth: "12", expYear: "2030" } });
    expect(res.body).toMatchObject({ transactionStatus: "FAILED", declineCode: 5 });
  });

  it("a currency: default USD, or the merchant's processingCurrency, or the one given (at its precision)", async () => {
    const usd = await api.payout({ amount: "10.5" });
    expect((await api.get(`/v1/payouts/card/info/${usd.body.transactionId}`)).body.totalAmount).toBe(10.5);
    expect((await api.payout({ amount: "10.5", currency: "JPY" })).body.errorMessage).toBe("Invalid field: amount");
    expect((await api.payout({ amount: "1050", currency: "JPY" })).status).toBe(200);
  });

  it("idempotent on requestId; the card number and CVV are never stored", async () => {
    const body = payoutBody({
      requestId: "same-po",
      card: { number: "5500000000000004", cardHolder: "J", expMonth: "12", expYear: "2030", cvv: "987" },
    });
    const a = await api.post("/v1/payouts/card", body);
    const b = await api.post("/v1/payouts/card", body);
    expect(b.body).toEqual(a.body);
    expect((await api.post("/v1/payouts/card", { ...body, amount: "1.00" })).status).toBe(409);
    expect(s.ctx.db.select().from(transactions).all()).toHaveLength(1);
    const dump = JSON.stringify(s.ctx.db.$client.prepare("SELECT * FROM transactions").all());
    expect(dump).not.toContain("5500000000000004");
    expect(dump).not.toContain("987");
  });
});

describe("payout refusals: a 4xx naming the field, nothing written", () => {
  const counts = () => ({
    rows: s.ctx.db.select().from(transactions).all().length,
    deliveries: s.ctx.db.select().from(webhookDeliveries).all().length,
  });
  it.each([
    [{ userEmail: undefined }, "Missing required field: userEmail"],
    [{ userEmail: "not-an-email" }, "Invalid field: userEmail"],
    [{ amount: undefined }, "Missing required field: amount"],
    [{ amount: "0" }, "Invalid field: amount"],
    [{ currency: "XXY" }, "Invalid field: currency"],
    [{ mid: "nope" }, "Invalid field: mid"],
    [{ card: undefined }, "Missing required field: card"],
    [{ card: { number: "4111111111111112", cardHolder: "X", expMonth: "12", expYear: "2030" } }, "Invalid field: card.number"],
    [{ card: { number: "4111111111111111", expMonth: "12", expYear: "2030" } }, "Missing required field: card.cardHolder"],
    [{ card: { number: "4111111111111111", cardHolder: "X", expMonth: "13", expYear: "2030" } }, "Invalid field: card.expMonth"],
    [{ card: { number: "4111111111111111", cardHolder: "X", expMonth: "12", expYear: "2020" } }, "Invalid field: card.expYear"],
    [{ callbackUrl: "nope" }, "Invalid field: callbackUrl"],
  ])("%o → %s", async (over, message) => {
    const before = counts();
    const body = payoutBody(over as Record<string, unknown>);
    for (const [k, v] of Object.entries(over)) if (v === undefined) delete (body as Record<string, unknown>)[k];
    const res = await api.post("/v1/payouts/card", body);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe(message);
    expect(counts()).toEqual(before);
  });

  it("status/info of an unknown id, a card payment's id or another merchant's payout → 404", async () => {
    expect((await api.get("/v1/payouts/card/info/po_nope")).body.errorMessage).toBe("Payout not found: po_nope");
    const tx = await api.pay();
    expect((await api.get(`/v1/payouts/card/status/${tx}`)).status).toBe(404);
    const p = await api.payout();
    await s.http
      .post("/_sandbox/scenarios")
      .send({
        name: "other",
        merchants: [{ merchantKey: "o_key", merchantSecret: "o_secret", mid: "o-mid", merchantId: 9001, accountId: 9101 }],
      })
      .expect(200);
    const otherToken = await s.token("o_key", "o_secret");
    const other = client(s, () => otherToken);
    expect((await other.get(`/v1/payouts/card/info/${p.body.transactionId}`)).status).toBe(404);
  });
});
