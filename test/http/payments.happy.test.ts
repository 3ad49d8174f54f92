import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { transactions } from "../../src/db/schema/index.js";
import { hmacBase64 } from "../../src/platform/crypto.js";
import { BUILTIN, sandboxWithReceiver, type TestSandbox } from "../helpers/harness.js";
import type { Receiver } from "../helpers/receiver.js";
import { type Body, CARDS, cardPaymentBody, threeDsBody } from "./payments.body.js";

let s: TestSandbox;
let token: string;
let receiver: Receiver;
let close: () => Promise<void>;

beforeEach(async () => {
  ({ s, token, receiver, close } = await sandboxWithReceiver());
});

afterEach(() => close());

const pay = (body: Body, auth = token, prefix = "/api/v1") =>
  s.http.post(`${prefix}/payments/card`).set("authorization", auth).send(body);
const withHook = (over: Parameters<typeof cardPaymentBody>[0] = {}) =>
  cardPaymentBody({ callbackUrl: `${receiver.url}/cb?shop=1`, ...over });
/** Sends whatever is due now; returns the callback bodies received so far. */
async function hooks(): Promise<Array<Record<string, unknown>>> {
  await s.ctx.work.runUntil();
  return receiver.received.map((h) => h.body as Record<string, unknown>);
}
const statuses = async () => (await hooks()).map((b) => b.transactionStatus);
const rowCount = () => s.ctx.db.select().from(transactions).all().length;
const advance = (by: string) => s.http.post("/_sandbox/clock/advance").send({ by });
const loadScenario = (doc: Record<string, unknown>) => s.http.post("/_sandbox/scenarios").send(doc).expect(200);

describe("POST /payments/card: test cards (docs/cards.md)", () => {
  it.each([
    ["visa", CARDS.visa, { transactionStatus: "SUCCEED" }],
    ["mastercard", CARDS.mastercard, { transactionStatus: "SUCCEED" }],
    ["declined", CARDS.declined, { transactionStatus: "FAILED", declineCode: 2 }],
    ["any other Luhn-valid number", CARDS.other, { transactionStatus: "SUCCEED" }],
  ])("%s → %o, with one signed callback", async (_name, number, expected) => {
    const res = await pay(withHook({ card: { number } }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ transactionId: "tx_000001", ...expected });

    await hooks();
    expect(receiver.received).toHaveLength(1);
    const hook = receiver.received[0]!;
    expect(hook.query.get("paymentMethod")).toBe("card");
    expect(hook.query.get("shop")).toBe("1");
    const body = hook.body as Record<string, unknown>;
    expect(body).toEqual({
      transactionId: "tx_000001",
      requestId: expect.any(String),
      mid: BUILTIN.mid,
      transactionStatus: expected.transactionStatus,
      declineCode: (expected as { declineCode?: number }).declineCode ?? null,
      cardMask: `${number.slice(0, 6)}******${number.slice(-4)}`,
      cardHolder: "Ada Lovelace",
      orderCurrency: "USD",
      processedCurrency: "USD",
      orderAmount: 20.5,
      processedAmount: 20.5,
      conversionRate: 1,
      callbackUrl: `${receiver.url}/cb?shop=1`,
      billingDetails: expect.objectContaining({ firstName: "Ada", country: "GB" }),
      order: { orderId: "order-1", title: "Difference engine" },
      createdAt: "2026-01-15T12:00:00.000Z",
    });
    const message = `${BUILTIN.mid}|20.5|USD|tx_000001`;
    expect(hook.headers["x-checksum"]).toBe(hmacBase64(BUILTIN.merchantSecret, message));
  });

  it("4000000000003220 asks for a challenge even without requestThreeDSecure", async () => {
    const res = await pay(withHook({ card: { number: CARDS.threeDs } }));
    expect(res.body).toEqual({
      transactionId: "tx_000001",
      transactionStatus: "CUSTOMER_VERIFICATION",
      challengeUrl: "http://sandbox.test/sandbox/3ds/tx_000001",
      challengeUrlIframe: "http://sandbox.test/sandbox/3ds/tx_000001?mode=iframe",
    });
    expect(await statuses()).toEqual(["CUSTOMER_VERIFICATION"]);
  });

  it("an approving card with requestThreeDSecure gets a challenge; a declining one is declined at once", async () => {
    expect((await pay(threeDsBody(`${receiver.url}/cb`))).body.transactionStatus).toBe("CUSTOMER_VERIFICATION");
    const declined = await pay(threeDsBody(`${receiver.url}/cb`, { card: { number: CARDS.declined } }));
    expect(declined.body).toEqual({ transactionId: "tx_000002", transactionStatus: "FAILED", declineCode: 2 });
  });

  it("answers under /v1 as under /api/v1, and with the doubled Bearer prefix", async () => {
    const res = await pay(cardPaymentBody(), `Bearer ${token}`, "/v1");
    expect(res.status).toBe(200);
    expect(res.body.transactionStatus).toBe("SUCCEED");
  });

  it("sends no webhook without a callbackUrl, and ignores unknown fields", async () => {
    const res = await pay(cardPaymentBody({ surprise: { nested: true }, card: { brandHint: "x" } }));
    expect(res.body.transactionStatus).toBe("SUCCEED");
    expect(await hooks()).toEqual([]);
  });
});

describe("GET /payments/card/status and /info", () => {
  it("return the status and the callback shape with declineCode", async () => {
    const { body } = await pay(withHook({ card: { number: CARDS.declined }, metadata: { cart: "7" } }));
    const status = await s.http.get(`/api/v1/payments/card/status/${body.transactionId}`).set("authorization", token);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ transactionId: body.transactionId, transactionStatus: "FAILED" });
    const info = await s.http.get(`/v1/payments/card/info/${body.transactionId}`).set("authorization", token);
    expect(info.status).toBe(200);
    const [hook] = await hooks();
    expect(info.body).toEqual({ ...hook, refundedAmount: 0 });
    expect(info.body.declineCode).toBe(2);
  });
});

describe("3DS challenge page (docs/cards.md)", () => {
  async function challenge(over: Parameters<typeof cardPaymentBody>[0] = {}) {
    const res = await pay(threeDsBody(`${receiver.url}/cb`, over));
    expect(res.body.transactionStatus).toBe("CUSTOMER_VERIFICATION");
    return res.body.transactionId as string;
  }
  const answer = (id: string, outcome: string, query = "") =>
    s.http.post(`/sandbox/3ds/${id}${query}`).type("form").send({ outcome });
  const statusOf = async (id: string) =>
    (await s.http.get(`/api/v1/payments/card/status/${id}`).set("authorization", token)).body.transactionStatus;

  it("renders one post form with the two outcome buttons, the amount, the masked card and the merchant; no auth", async () => {
    const id = await challenge({ amount: "1234.5", currency: "EUR" });
    const page = await s.http.get(`/sandbox/3ds/${id}`);
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    const html = page.text;
    expect(html.match(/<form\b/g)).toHaveLength(1);
    expect(html).toMatch(/<form method="post" action="\/sandbox\/3ds\/tx_000001">/);
    expect(html).toContain('name="outcome" value="success"');
    expect(html).toContain('name="outcome" value="failure"');
    expect(html.match(/type="submit"/g)).toHaveLength(2);
    expect(html).toContain("1234.50 EUR");
    expect(html).toContain("411111******1111");
    expect(html).toContain(BUILTIN.mid);
    expect(html).not.toContain("_top");

    const iframe = await s.http.get(`/sandbox/3ds/${id}?mode=iframe`);
    expect(iframe.text).toMatch(/<form method="post" action="\/sandbox\/3ds\/tx_000001\?mode=iframe" target="_top">/);
  });

  it("success → SUCCEED, webhook, 303 to successRedirectUrl with transactionId; a second post is a 409 that changes nothing", async () => {
    const id = await challenge();
    const res = await answer(id, "success");
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`https://shop.example/ok?cart=7&transactionId=${id}`);
    expect(await statusOf(id)).toBe("SUCCEED");
    expect(await statuses()).toEqual(["CUSTOMER_VERIFICATION", "SUCCEED"]);

    const again = await answer(id, "failure");
    expect(again.status).toBe(409);
    expect(again.headers["content-type"]).toMatch(/^text\/html/);
    expect(await statusOf(id)).toBe("SUCCEED");
    expect(await statuses()).toEqual(["CUSTOMER_VERIFICATION", "SUCCEED"]);
    expect((await s.http.get(`/sandbox/3ds/${id}`)).status).toBe(409);
  });

  it("failure → FAILED with declineCode 3 and 303 to failureRedirectUrl", async () => {
    const id = await challenge();
    const res = await answer(id, "failure", "?mode=iframe");
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`https://shop.example/ko?transactionId=${id}`);
    const info = await s.http.get(`/api/v1/payments/card/info/${id}`).set("authorization", token);
    expect(info.body).toMatchObject({ transactionStatus: "FAILED", declineCode: 3 });
    const bodies = await hooks();
    expect(bodies.map((b) => [b.transactionStatus, b.declineCode])).toEqual([
      ["CUSTOMER_VERIFICATION", null],
      ["FAILED", 3],
    ]);
  });

  it("an unanswered challenge fails after 30 virtual minutes with declineCode 4 and its webhook", async () => {
    const id = await challenge();
    await advance("PT29M59S").expect(200);
    expect(await statusOf(id)).toBe("CUSTOMER_VERIFICATION");
    const ran = await advance("PT1S").expect(200);
    expect(ran.body.ran.completions).toBe(1);
    const info = await s.http.get(`/api/v1/payments/card/info/${id}`).set("authorization", token);
    expect(info.body).toMatchObject({ transactionStatus: "FAILED", declineCode: 4 });
    expect(await statuses()).toEqual(["CUSTOMER_VERIFICATION", "FAILED"]);
    expect((await answer(id, "success")).status).toBe(409);
  });

  it("without redirect URLs the answer shows a small done page", async () => {
    const { body } = await pay(cardPaymentBody({ card: { number: CARDS.threeDs } }));
    const res = await answer(body.transactionId, "success");
    expect(res.status).toBe(200);
    expect(res.text).toContain("SUCCEED");
  });

  it("refuses a bad outcome with 400 and unknown ids with 404", async () => {
    const id = await challenge();
    expect((await answer(id, "maybe")).status).toBe(400);
    expect((await s.http.post(`/sandbox/3ds/${id}`).type("form").send({})).status).toBe(400);
    expect(await statusOf(id)).toBe("CUSTOMER_VERIFICATION");
    expect((await s.http.get("/sandbox/3ds/tx_nope")).status).toBe(404);
    expect((await answer("tx_nope", "success")).status).toBe(404);
  });
});

describe("scenario cards, amount rules, PROCESSING (docs/scenarios.md, docs/control-plane.md complete)", () => {
  beforeEach(async () => {
    await loadScenario({
      name: "outcomes",
      cards: [
        {
          number: "4242424242424242",
          payment: { status: "PROCESSING", completeAfter: "PT5M", completeWith: "FAILED", declineCode: 5 },
        },
        { number: "5555555555554444", payment: { status: "FAILED", declineCode: 6 } },
      ],
      rules: [
        { amount: "13.37", status: "FAILED", declineCode: 5 },
        { amount: "42.00", currency: "EUR", status: "PROCESSING" },
      ],
    });
  });

  it("a scenario card decides its payments", async () => {
    const res = await pay(withHook({ card: { number: "5555555555554444" } }));
    expect(res.body).toEqual({ transactionId: "tx_000001", transactionStatus: "FAILED", declineCode: 6 });
  });

  it("an amount rule beats the card; a rule with a currency matches only that currency", async () => {
    expect((await pay(cardPaymentBody({ amount: "13.37" }))).body).toMatchObject({ transactionStatus: "FAILED", declineCode: 5 });
    expect((await pay(cardPaymentBody({ amount: "42", currency: "USD" }))).body.transactionStatus).toBe("SUCCEED");
    expect((await pay(cardPaymentBody({ amount: "42", currency: "EUR" }))).body.transactionStatus).toBe("PROCESSING");
  });

  it("PROCESSING with completeAfter ends by the clock, with a webhook for each status", async () => {
    const { body } = await pay(withHook({ card: { number: "4242424242424242" } }));
    expect(body).toEqual({ transactionId: "tx_000001", transactionStatus: "PROCESSING" });
    expect(await statuses()).toEqual(["PROCESSING"]);
    await advance("PT4M").expect(200);
    expect(await statuses()).toEqual(["PROCESSING"]);
    const ran = await advance("PT1M").expect(200);
    expect(ran.body.ran).toMatchObject({ completions: 1 });
    expect((await hooks()).map((b) => [b.transactionStatus, b.declineCode])).toEqual([
      ["PROCESSING", null],
      ["FAILED", 5],
    ]);
  });

  it("POST /_sandbox/transactions/{id}/complete finishes a PROCESSING transaction once", async () => {
    const { body } = await pay(withHook({ amount: "42", currency: "EUR" }));
    expect(body.transactionStatus).toBe("PROCESSING");
    const done = await s.http.post(`/_sandbox/transactions/${body.transactionId}/complete`).send({ status: "SUCCEED" });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ transactionId: body.transactionId, transactionStatus: "SUCCEED", declineCode: null });
    expect(await statuses()).toEqual(["PROCESSING", "SUCCEED"]);
    const again = await s.http.post(`/_sandbox/transactions/${body.transactionId}/complete`).send({ status: "FAILED" });
    expect(again.status).toBe(409);
    expect(await statuses()).toEqual(["PROCESSING", "SUCCEED"]);
  });

  it("complete with FAILED and no declineCode uses 2, or the code given", async () => {
    const a = (await pay(cardPaymentBody({ amount: "42", currency: "EUR" }))).body.transactionId;
    const b = (await pay(cardPaymentBody({ amount: "42", currency: "EUR" }))).body.transactionId;
    expect((await s.http.post(`/_sandbox/transactions/${a}/complete`).send({ status: "FAILED" })).body.declineCode).toBe(2);
    expect(
      (await s.http.post(`/_sandbox/transactions/${b}/complete`).send({ status: "FAILED", declineCode: 7 })).body.declineCode,
    ).toBe(7);
  });
});

describe("FX (docs/scenarios.md)", () => {
  let fxToken: string;
  beforeEach(async () => {
    await loadScenario({
      name: "fx",
      merchants: [
        {
          merchantKey: "fx_key",
          merchantSecret: "fx_secret",
          mid: "fx-mid",
          merchantId: 5001,
          accountId: 6001,
          processingCurrency: "EUR",
        },
      ],
      fxRates: { USD: 1.25, GBP: 2 },
    });
    fxToken = await s.token("fx_key", "fx_secret");
  });
  const fxPay = async (amount: string, currency: string) => {
    const res = await pay(cardPaymentBody({ mid: "fx-mid", amount, currency, callbackUrl: `${receiver.url}/cb` }), fxToken);
    expect(res.status).toBe(200);
    return res.body;
  };
  const info = async (id: string) => (await s.http.get(`/api/v1/payments/card/info/${id}`).set("authorization", fxToken)).body;

  it("converts at authorization: processed = order × rate(processed)/rate(order), conversionRate as a number", async () => {
    const { transactionId } = await fxPay("20.00", "USD");
    expect(await info(transactionId)).toMatchObject({
      orderAmount: 20,
      orderCurrency: "USD",
      processedAmount: 16,
      processedCurrency: "EUR",
      conversionRate: 0.8,
    });
    const [hook] = await hooks();
    expect(hook).toMatchObject({ orderAmount: 20, processedAmount: 16, conversionRate: 0.8 });
  });

  it("rounds half-up at the processed currency's precision, from a zero-digit currency too", async () => {
    expect(await info((await fxPay("0.01", "GBP")).transactionId)).toMatchObject({ processedAmount: 0.01 }); // 0.005 → 0.01
    expect(await info((await fxPay("1000", "JPY")).transactionId)).toMatchObject({
      processedAmount: 6.15,
      conversionRate: 0.0061538462,
    });
  });

  it("same currency, or a merchant without processingCurrency: unchanged with rate 1", async () => {
    expect(await info((await fxPay("9.99", "EUR")).transactionId)).toMatchObject({
      processedAmount: 9.99,
      processedCurrency: "EUR",
      conversionRate: 1,
    });
    const builtin = await pay(cardPaymentBody({ amount: "20", currency: "USD" }));
    const b = await s.http.get(`/api/v1/payments/card/info/${builtin.body.transactionId}`).set("authorization", token);
    expect(b.body).toMatchObject({ processedAmount: 20, processedCurrency: "USD", conversionRate: 1 });
  });

  it("a currency without a rate is declined with 15", async () => {
    expect(await fxPay("10", "AFN")).toMatchObject({ transactionStatus: "FAILED", declineCode: 15 });
  });
});

describe("idempotency (docs/cards.md)", () => {
  it("the same requestId and body replays the first response: no new transaction, no new webhook", async () => {
    const body = withHook();
    const first = await pay(body);
    await hooks();
    const second = await pay({ ...body, unknownExtra: 1 } as Body);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(rowCount()).toBe(1);
    expect(await statuses()).toEqual(["SUCCEED"]);
  });

  it("the same requestId with another body is a 409", async () => {
    const body = cardPaymentBody();
    await pay(body).expect(200);
    const res = await pay({ ...body, amount: "99.00" });
    expect(res.status).toBe(409);
    expect(res.body.errorMessage).toBe("requestId already used with different parameters");
    expect(rowCount()).toBe(1);
  });

  it("50 concurrent duplicates create one transaction and one webhook", async () => {
    const body = withHook({ card: { number: CARDS.threeDs } });
    const results = await Promise.all(Array.from({ length: 50 }, () => pay(body)));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(results.map((r) => r.body.transactionId)).size).toBe(1);
    expect(rowCount()).toBe(1);
    expect(await statuses()).toEqual(["CUSTOMER_VERIFICATION"]);
  });

  it("requestIds are per merchant", async () => {
    await loadScenario({
      name: "m2",
      merchants: [{ merchantKey: "k2", merchantSecret: "s2", mid: "mid-2", merchantId: 9, accountId: 10 }],
    });
    const body = cardPaymentBody();
    await pay(body).expect(200);
    await pay({ ...body, mid: "mid-2" }, await s.token("k2", "s2")).expect(200);
    expect(
      s.ctx.db
        .select()
        .from(transactions)
        .where(eq(transactions.requestId, body.requestId as string))
        .all(),
    ).toHaveLength(2);
  });
});
