import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILTIN, sandboxWithReceiver, type TestSandbox } from "../helpers/harness.js";
import type { Receiver } from "../helpers/receiver.js";
import { BILLING, CARDS } from "./payments.body.js";
import { client, verifyStatusSignature } from "./refunds.support.js";

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
const hooks = async () => {
  await s.ctx.work.runUntil();
  return receiver.received;
};
const FX_MERCHANT = {
  merchantKey: "fx_key",
  merchantSecret: "fx_secret",
  mid: "fx-mid",
  merchantId: 7001,
  accountId: 8001,
  processingCurrency: "EUR",
};

describe("POST /v1/refunds/card (docs/refunds-payouts.md#refunds, docs/refunds-payouts.md)", () => {
  it("a whole refund: PENDING, SUCCEED a virtual minute later, the original REFUNDED, each with a signed callback", async () => {
    const tx = await api.pay({ amount: "20.50", callbackUrl: `${receiver.url}/pay` });
    const res = await api.refund(tx, "20.50", { callbackUrl: `${receiver.url}/refund?shop=1`, metadata: { k: "v" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ refundId: expect.stringMatching(/^rf_/), transactionStatus: "PENDING" });
    const refundId = res.body.refundId as string;

    expect((await api.get(`/api/v1/refunds/card/status/${refundId}`)).body).toEqual({
      refundId,
      transactionId: tx,
      transactionStatus: "PENDING",
    });
    await advance("PT59S");
    expect((await api.get(`/v1/refunds/card/status/${refundId}`)).body.transactionStatus).toBe("PENDING");
    await advance("PT1S");
    const info = await api.get(`/api/v1/refunds/card/info/${refundId}`);
    expect(info.body).toEqual({
      refundId,
      transactionId: tx,
      requestId: expect.any(String),
      mid: BUILTIN.mid,
      transactionStatus: "SUCCEED",
      totalAmount: 20.5,
      callbackUrl: `${receiver.url}/refund?shop=1`,
      createdAt: "2026-01-15T12:00:00.000Z",
      metadata: { k: "v" },
    });
    expect((await api.get(`/api/v1/payments/card/status/${tx}`)).body.transactionStatus).toBe("REFUNDED");
    const payInfo = await api.get(`/api/v1/payments/card/info/${tx}`);
    expect(payInfo.body).toMatchObject({ transactionStatus: "REFUNDED", refundedAmount: 20.5 });

    const got = await hooks();
    const refundHooks = got.filter((h) => h.path === "/refund");
    expect(refundHooks.map((h) => (h.body as { transactionStatus: string }).transactionStatus)).toEqual(["PENDING", "SUCCEED"]);
    for (const h of refundHooks) {
      expect(h.query.get("paymentMethod")).toBe("card");
      expect(h.query.get("shop")).toBe("1");
      expect(verifyStatusSignature(h)).toBe(true);
      expect(h.body).toEqual({
        transactionId: tx,
        refundId,
        requestId: info.body.requestId,
        mid: BUILTIN.mid,
        transactionStatus: expect.any(String),
        declineCode: null,
        totalAmount: 20.5,
        callbackUrl: `${receiver.url}/refund?shop=1`,
        createdAt: "2026-01-15T12:00:00.000Z",
      });
    }
    const payHooks = got.filter((h) => h.path === "/pay").map((h) => (h.body as { transactionStatus: string }).transactionStatus);
    expect(payHooks).toEqual(["SUCCEED", "REFUNDED"]);
  });

  it("partial refunds to the last cent; the original stays SUCCEED until they add up, then REFUNDED", async () => {
    const tx = await api.pay({ amount: "10.00" });
    for (const amount of ["3.33", "3.33", "3.33"]) expect((await api.refund(tx, amount)).status).toBe(200);
    await advance("PT1M");
    const info = (await api.get(`/api/v1/payments/card/info/${tx}`)).body;
    expect(info).toMatchObject({ transactionStatus: "SUCCEED", refundedAmount: 9.99 });
    expect((await api.refund(tx, "0.02")).status).toBe(400);
    expect((await api.refund(tx, "0.01")).status).toBe(200);
    await advance("PT1M");
    expect((await api.get(`/api/v1/payments/card/info/${tx}`)).body).toMatchObject({
      transactionStatus: "REFUNDED",
      refundedAmount: 10,
    });
  });

  it("FX with an awkward rate (1/3): each refund gets its half-up share, the last what is left, and the parts add up", async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({ name: "fx", merchants: [FX_MERCHANT], fxRates: { EUR: 1, USD: 3 } })
      .expect(200);
    const fxToken = await s.token(FX_MERCHANT.merchantKey, FX_MERCHANT.merchantSecret);
    const fx = client(s, () => fxToken);
    const tx = await fx.pay({ mid: FX_MERCHANT.mid, amount: "10.00", currency: "USD" });
    const pay = (await fx.get(`/api/v1/payments/card/info/${tx}`)).body;
    expect(pay).toMatchObject({ processedCurrency: "EUR", processedAmount: 3.33, orderAmount: 10 });
    const totals: number[] = [];
    for (const amount of ["1.00", "1.00", "1.00", "7.00"]) {
      const r = await fx.refund(tx, amount, { mid: FX_MERCHANT.mid });
      expect(r.status).toBe(200);
      totals.push((await fx.get(`/api/v1/refunds/card/info/${r.body.refundId}`)).body.totalAmount);
    }
    // 1.00 USD = 0.333... EUR → 0.33 each; the last refund gets 3.33 - 0.99 = 2.34 (not 7/3 = 2.33)
    expect(totals).toEqual([0.33, 0.33, 0.33, 2.34]);
    expect(Math.round(totals.reduce((a, b) => a + b, 0) * 100)).toBe(333);
  });

  it("an `operation: refund` rule fails a refund at once (the amount is freed) or delays it", async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({
        name: "refund-rules",
        rules: [
          { amount: "6.66", operation: "refund", status: "FAILED", declineCode: 12 },
          { amount: "1.11", operation: "refund", status: "PROCESSING", completeAfter: "PT1H" },
        ],
      })
      .expect(200);
    const tx = await api.pay({ amount: "6.66" });
    const failed = await api.refund(tx, "6.66");
    expect(failed.body).toEqual({ refundId: expect.any(String), transactionStatus: "FAILED", declineCode: 12 });
    expect((await api.get(`/api/v1/refunds/card/info/${failed.body.refundId}`)).body.declineCode).toBe(12);
    expect((await api.get(`/api/v1/refunds/card/status/${failed.body.refundId}`)).body).not.toHaveProperty("declineCode");
    // the payment amount rule (6.66, operation payment by default) did not fire for the payment itself
    const delayed = await api.refund(tx, "1.11");
    expect(delayed.body.transactionStatus).toBe("PROCESSING");
    await advance("PT59M");
    expect((await api.get(`/api/v1/refunds/card/status/${delayed.body.refundId}`)).body.transactionStatus).toBe("PROCESSING");
    await advance("PT1M");
    expect((await api.get(`/api/v1/refunds/card/status/${delayed.body.refundId}`)).body.transactionStatus).toBe("SUCCEED");
    expect((await api.get(`/api/v1/payments/card/info/${tx}`)).body.refundedAmount).toBe(1.11);
  });

  it("a pending refund can be completed from the control plane", async () => {
    const tx = await api.pay({ amount: "5.00" });
    const r = await api.refund(tx, "5.00");
    const done = await s.http.post(`/_sandbox/transactions/${r.body.refundId}/complete`).send({ status: "FAILED" });
    expect(done.body).toEqual({ transactionId: r.body.refundId, transactionStatus: "FAILED", declineCode: 2 });
    expect((await api.get(`/api/v1/payments/card/status/${tx}`)).body.transactionStatus).toBe("SUCCEED");
    expect((await api.refund(tx, "5.00")).status).toBe(200);
  });

  it("refunds one-click and subscription charges too", async () => {
    const tok = await api.post("/api/v1/payments/card/tokenize", {
      requestId: "tok-1",
      merchantId: BUILTIN.merchantId,
      card: { number: CARDS.visa, expMonth: "12", expYear: "2030", cvv: "123" },
      billingDetails: BILLING,
    });
    const charge = await api.post("/api/v1/payments/card/charge", {
      requestId: "ch-1",
      mid: BUILTIN.mid,
      cardToken: tok.body.token,
      amount: "7.00",
      currency: "USD",
      callbackUrl: `${receiver.url}/c`,
      successRedirectUrl: "https://shop.example/ok",
      failureRedirectUrl: "https://shop.example/ko",
    });
    expect(charge.body.transactionStatus).toBe("SUCCEED");
    expect((await api.refund(charge.body.transactionId, "7")).status).toBe(200);
  });

  it("the same requestId and body replays the refund; another body is a 409", async () => {
    const tx = await api.pay({ amount: "9.00" });
    const body = { requestId: "same-refund", mid: BUILTIN.mid, transactionId: tx, amount: "4.00", reason: "x" };
    const a = await api.post("/v1/refunds/card", body);
    const b = await api.post("/v1/refunds/card", body);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    const c = await api.post("/v1/refunds/card", { ...body, amount: "5.00" });
    expect(c.status).toBe(409);
    await advance("PT1M");
    expect((await api.get(`/api/v1/payments/card/info/${tx}`)).body.refundedAmount).toBe(4);
  });

  it("concurrent refunds that together would exceed the payment: exactly the allowed ones succeed", async () => {
    const tx = await api.pay({ amount: "10.00" });
    const results = await Promise.all(Array.from({ length: 8 }, () => api.refund(tx, "3.00")));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.errorMessage).toBe("Invalid field: amount");
    await advance("PT1M");
    expect((await api.get(`/api/v1/payments/card/info/${tx}`)).body.refundedAmount).toBe(9);
  });
});
