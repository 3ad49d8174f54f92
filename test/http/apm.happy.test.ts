import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sandboxWithReceiver, T0, type TestSandbox } from "../helpers/harness.js";
import type { Receiver } from "../helpers/receiver.js";
import { apmBody, type Body, hmac, payoutBody } from "./apm.support.js";

let s: TestSandbox;
let token: string;
let receiver: Receiver;
let close: () => Promise<void>;

beforeEach(async () => {
  ({ s, token, receiver, close } = await sandboxWithReceiver());
});

afterEach(() => close());

const SECRET = "sandbox_merchant_secret";
const pay = (body: Body) => s.http.post("/api/v1/payments/apm").set("authorization", token).send(body);
const payout = (body: Body, referer = "https://shop.example/payouts") =>
  s.http.post("/api/v1/payouts/apm").set("authorization", token).set("referer", referer).send(body);
const cb = () => `${receiver.url}/cb?shop=1`;
async function hooks() {
  await s.ctx.work.runUntil();
  return receiver.received;
}
const advance = (by: string) => s.http.post("/_sandbox/clock/advance").send({ by }).expect(200);

describe("POST /payments/apm: methods with every field (docs/apm.md)", () => {
  it("a bank transfer answers PROCESSING, actionType NONE, then SUCCEED a virtual minute later, a signed APM callback each", async () => {
    const res = await pay(apmBody("SMART_BANK_TRANSFER", { callbackUrl: cb() }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      transactionId: "tx_000001",
      requestId: expect.any(String),
      transactionStatus: "PROCESSING",
      apmResponseData: {
        paymentMethod: "SMART_BANK_TRANSFER",
        paymentType: "BANK_TRANSFER",
        actionType: "NONE",
        providerTransactionId: "sbx-tx_000001",
      },
    });
    await advance("PT1M");
    const received = await hooks();
    expect(received.map((h) => (h.body as Body).transactionStatus)).toEqual(["PROCESSING", "SUCCEED"]);
    for (const h of received) {
      expect(h.query.get("paymentMethod")).toBe("apm");
      expect(h.query.get("apmType")).toBe("SMART_BANK_TRANSFER");
      expect(h.query.get("shop")).toBe("1");
      const b = h.body as Body;
      // the amount exactly as it appears in the callback body: 20.5
      expect(h.raw).toContain('"orderAmount":20.5');
      expect(h.headers["x-checksum"]).toBe(hmac(SECRET, `2001|20.5|USD|${b.transactionId}`));
    }
    const last = received[1]?.body as Body;
    expect(last).toMatchObject({
      transactionId: "tx_000001",
      accountId: 2001,
      transactionStatus: "SUCCEED",
      declineCode: null,
      declineSubReason: null,
      apmType: "SMART_BANK_TRANSFER",
      apmRequestPayload: {
        paymentMethod: "SMART_BANK_TRANSFER",
        paymentType: "BANK_TRANSFER",
        accountNumber: "000123456789",
        bankName: "Sandbox Bank",
        accountHolderName: "Jane Doe",
      },
      orderCurrency: "USD",
      processedCurrency: "USD",
      orderAmount: 20.5,
      processedAmount: 20.5,
      conversionRate: 1,
      successRedirectUrl: "https://shop.example/ok",
      createdAt: new Date(T0).toISOString(),
    });
    const info = await s.http.get("/api/v1/payments/apm/info/tx_000001").set("authorization", token);
    expect(info.body).toEqual(last);
    const status = await s.http.get("/v1/payments/apm/status/tx_000001").set("authorization", token);
    expect(status.body).toEqual({ transactionId: "tx_000001", transactionStatus: "SUCCEED" });
  });

  it("wallet pay-ins with a token answer SUCCEED at once with only the wallet fields; the token is never kept", async () => {
    const body = apmBody("APPLE_PAY");
    const wallet = {
      requestId: body.requestId,
      accountId: body.accountId,
      amount: body.amount,
      currency: body.currency,
      apmPayload: body.apmPayload,
      checksum: body.checksum,
    };
    const res = await pay(wallet);
    expect(res.status).toBe(200);
    expect(res.body.transactionStatus).toBe("SUCCEED");
    expect(res.body.apmResponseData.actionType).toBe("NONE");
    const info = await s.http.get(`/api/v1/payments/apm/info/${res.body.transactionId}`).set("authorization", token);
    expect(info.body.apmRequestPayload.token).toEqual({ paymentData: { data: "[masked]" } });
    const dump = JSON.stringify(s.ctx.db.$client.prepare("select * from transactions").all());
    expect(dump).not.toContain("ZW5jcnlwdGVkLXdhbGxldC1kYXRh");
  });

  it("the decrypted wallet flow goes through the test-card table and never stores the PAN", async () => {
    const ok = await pay(apmBody("GOOGLE_PAY", {}, { decrypted: { applicationPrimaryAccountNumber: "4111111111111111" } }));
    expect(ok.body.transactionStatus).toBe("SUCCEED");
    const ko = await pay(apmBody("GOOGLE_PAY", {}, { decrypted: { applicationPrimaryAccountNumber: "4000000000000002" } }));
    expect(ko.body).toMatchObject({
      transactionStatus: "FAILED",
      declineCode: 2,
      declineSubReason: "REJECTED_BY_ISSUER_BANK_ERROR",
    });
    const info = await s.http.get(`/api/v1/payments/apm/info/${ko.body.transactionId}`).set("authorization", token);
    expect(info.body.apmRequestPayload.decrypted).toEqual({ applicationPrimaryAccountNumber: "400000******0002" });
    const db = s.ctx.db.$client;
    const dump = JSON.stringify([
      db.prepare("select * from transactions").all(),
      db.prepare("select * from idempotency_keys").all(),
    ]);
    expect(dump).not.toContain("4000000000000002");
    expect(dump).not.toContain("4111111111111111");
  });

  it("replays the same requestId and body without a new transaction", async () => {
    const body = apmBody("SMART_E_WALLET");
    const first = await pay(body);
    const again = await pay(body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const other = await pay({ ...body, amount: "21.00", checksum: hmac(SECRET, `2001|21.00|USD|${body.requestId}`) });
    expect(other.status).toBe(409);
  });

  it("converts for a merchant with a processingCurrency, signing the order amount as in the body", async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({
        name: "fx",
        merchants: [
          {
            merchantKey: "fx_key",
            merchantSecret: "fx_secret",
            mid: "fx-mid",
            merchantId: 5001,
            accountId: 6001,
            processingCurrency: "EUR",
            walletDomains: ["shop.example"],
          },
        ],
        fxRates: { USD: 1.25 },
      })
      .expect(200);
    const fxToken = await s.token("fx_key", "fx_secret");
    const body = apmBody("SMART_E_WALLET", { accountId: "6001", amount: "20.00", callbackUrl: cb(), checksum: "x" });
    body.checksum = hmac("fx_secret", `6001|20.00|USD|${body.requestId}`);
    const res = await s.http.post("/api/v1/payments/apm").set("authorization", fxToken).send(body);
    expect(res.status).toBe(200);
    const [hook] = await hooks();
    expect(hook?.body).toMatchObject({ orderAmount: 20, processedAmount: 16, processedCurrency: "EUR", conversionRate: 0.8 });
    expect(hook?.headers["x-checksum"]).toBe(hmac("fx_secret", `6001|20|USD|${res.body.transactionId}`));
  });
});

describe("scenario rules apply to APM pay-ins as to any pay-in (docs/apm.md, docs/scenarios.md)", () => {
  it("an amount rule declines a wallet and a bank transfer at once, with the FAILED callback; another delays", async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({
        name: "apm-rules",
        rules: [
          { amount: "13.37", status: "FAILED", declineCode: 5 },
          { amount: "42.00", status: "PROCESSING", completeAfter: "PT5M" },
        ],
      })
      .expect(200);
    const wallet = await pay(apmBody("APPLE_PAY", { amount: "13.37", callbackUrl: cb() }));
    expect(wallet.body).toMatchObject({
      transactionStatus: "FAILED",
      declineCode: 5,
      declineSubReason: "INSUFFICIENT_FUNDS_ERROR",
    });
    const bank = await pay(apmBody("SMART_BANK_TRANSFER", { amount: "13.37" }));
    expect(bank.body).toMatchObject({ transactionStatus: "FAILED", declineCode: 5 });
    expect(bank.body.apmResponseData.actionType).toBe("NONE");
    const slow = await pay(apmBody("SMART_E_WALLET", { amount: "42.00" }));
    expect(slow.body.transactionStatus).toBe("PROCESSING");
    await advance("PT4M");
    const status = async () =>
      (await s.http.get(`/api/v1/payments/apm/status/${slow.body.transactionId}`).set("authorization", token)).body
        .transactionStatus;
    expect(await status()).toBe("PROCESSING");
    await advance("PT1M");
    expect(await status()).toBe("SUCCEED");
    const received = await hooks();
    expect(received.map((h) => [(h.body as Body).transactionStatus, (h.body as Body).declineCode])).toEqual([["FAILED", 5]]);
  });
});

describe("POST /payments/apm: data collection (docs/apm.md)", () => {
  it("missing fields → PENDING, actionType REDIRECT to the HPP", async () => {
    const res = await pay(apmBody("SMART_BANK_TRANSFER", {}, { bankName: "Sandbox Bank" }));
    expect(res.body).toMatchObject({
      transactionStatus: "PENDING",
      apmResponseData: { actionType: "REDIRECT", redirectUrl: `http://sandbox.test/sandbox/hpp/${res.body.transactionId}` },
    });
  });

  it("QR methods answer PENDING with a deep link and a PNG, and the QR page URL", async () => {
    const res = await pay(apmBody("UPI_QR", { amount: "499" }));
    const id = res.body.transactionId;
    expect(res.body.transactionStatus).toBe("PENDING");
    expect(res.body.apmResponseData).toMatchObject({
      actionType: "QR",
      redirectUrl: `http://sandbox.test/sandbox/qr/${id}`,
      qrDeepLink: `upi://pay?pa=sandbox@upi&pn=sandbox-mid-001&am=499.00&cu=INR&tr=${id}`,
    });
    expect(Buffer.from(res.body.apmResponseData.qrData, "base64").subarray(1, 4).toString()).toBe("PNG");
  });
});

describe("payouts (docs/apm.md#payouts)", () => {
  it("PENDING then SUCCEED a virtual minute later, with payout callbacks signed transactionId|requestId|transactionStatus", async () => {
    const body = payoutBody("SMART_BANK_TRANSFER_PAYOUT", { callbackUrl: cb() });
    const res = await payout(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      transactionId: "po_000001",
      requestId: body.requestId,
      transactionStatus: "PENDING",
      apmResponseData: expect.objectContaining({ actionType: "NONE" }),
      createdTime: new Date(T0).toISOString(),
    });
    await advance("PT1M");
    const received = await hooks();
    expect(received.map((h) => (h.body as Body).transactionStatus)).toEqual(["PENDING", "SUCCEED"]);
    for (const h of received) {
      const b = h.body as Body;
      expect(h.headers["x-checksum"]).toBe(hmac(SECRET, `${b.transactionId}|${body.requestId}|${b.transactionStatus}`));
      expect(h.query.get("apmType")).toBe("SMART_BANK_TRANSFER_PAYOUT");
      expect(b).not.toHaveProperty("orderAmount");
      expect(b).not.toHaveProperty("successRedirectUrl");
    }
    const info = await s.http.get("/api/v1/payouts/apm/info/po_000001").set("authorization", token);
    expect(info.body).toEqual(received[1]?.body);
    expect(info.body.metadata).toEqual({ batch: "7" });
  });

  it("an operation: payout rule fails it with declineCode and declineSubReason; another delays it", async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({
        name: "payout-rules",
        rules: [
          { amount: "13.37", operation: "payout", status: "FAILED", declineCode: 5 },
          { amount: "66.60", operation: "payout", status: "PENDING", completeAfter: "PT1H" },
        ],
      })
      .expect(200);
    const failed = await payout(payoutBody("SMART_E_WALLET", { amount: "13.37" }));
    expect(failed.body).toMatchObject({
      transactionStatus: "FAILED",
      declineCode: 5,
      declineSubReason: "INSUFFICIENT_FUNDS_ERROR",
    });
    const slow = await payout(payoutBody("SMART_E_WALLET", { amount: "66.60" }));
    expect(slow.body.transactionStatus).toBe("PENDING");
    await advance("PT59M");
    const info = async () =>
      (await s.http.get(`/api/v1/payouts/apm/info/${slow.body.transactionId}`).set("authorization", token)).body;
    expect((await info()).transactionStatus).toBe("PENDING");
    await advance("PT1M");
    expect((await info()).transactionStatus).toBe("SUCCEED");
  });
});
