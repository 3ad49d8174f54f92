/**
 * "Every bad input gets a clear 4xx ... and changes nothing. A 5xx for any input is a bug."
 * Valid bodies of every write route, randomly damaged (test/helpers/mutate.ts), and random
 * control-plane inputs: never a 5xx, always an errorMessage, and a refused create writes no row.
 */
import { count } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cardTokens, subscriptions, transactions } from "../../src/db/schema/index.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { mutate, mutations } from "../helpers/mutate.js";
import { apmBody, payoutBody, sign } from "./apm.support.js";
import { cardPaymentBody } from "./payments.body.js";
import { payoutBody as cardPayoutBody, refundBody } from "./refunds.support.js";
import { chargeBody, subscriptionBody, tokenFor, tokenizeBody } from "./subscriptions.support.js";

let s: TestSandbox;
let auth: string;
let cardToken: string;
let subscriptionId: string;
let paymentId: string;

beforeAll(async () => {
  s = makeSandbox();
  auth = await s.token();
  cardToken = await tokenFor(s);
  const sub = await s.http
    .post("/api/v1/payments/card/recurring")
    .set("authorization", auth)
    .send(subscriptionBody(cardToken, "http://127.0.0.1:9/cb"));
  subscriptionId = sub.body.subscriptionId;
  expect(subscriptionId).toMatch(/^sub_/);
  const pay = await s.http
    .post("/api/v1/payments/card")
    .set("authorization", auth)
    .send(cardPaymentBody({ amount: "99999.00" }));
  paymentId = pay.body.transactionId;
  expect(pay.body.transactionStatus).toBe("SUCCEED");
});
afterAll(async () => {
  await s.close();
});

const rows = () => ({
  tokens: s.ctx.db.select({ n: count() }).from(cardTokens).get()?.n,
  transactions: s.ctx.db.select({ n: count() }).from(transactions).get()?.n,
  subscriptions: s.ctx.db.select({ n: count() }).from(subscriptions).get()?.n,
});

function expectClean(res: { status: number; body: unknown }) {
  expect(res.status).toBeLessThan(500);
  if (res.status >= 400) expect(typeof (res.body as { errorMessage?: unknown }).errorMessage).toBe("string");
}

const routes: Array<{ name: string; method: "post" | "put"; path: () => string; body: () => unknown; creates: boolean }> = [
  { name: "tokenize", method: "post", path: () => "/api/v1/payments/card/tokenize", body: () => tokenizeBody(), creates: true },
  {
    name: "one-click charge",
    method: "post",
    path: () => "/api/v1/payments/card/charge",
    body: () => chargeBody(cardToken, "http://127.0.0.1:9/cb"),
    creates: true,
  },
  {
    name: "create subscription",
    method: "post",
    path: () => "/api/v1/payments/card/recurring",
    body: () => subscriptionBody(cardToken, "http://127.0.0.1:9/cb"),
    creates: true,
  },
  {
    name: "update subscription",
    method: "put",
    path: () => `/api/v1/payments/card/recurring/${subscriptionId}`,
    body: () => ({ plan: { amount: "12.00", frequency: "WEEKLY", interval: 2 }, status: "ACTIVE" }),
    creates: false,
  },
  {
    name: "refund",
    method: "post",
    path: () => "/v1/refunds/card",
    body: () => refundBody(paymentId, "1.00", { callbackUrl: "http://127.0.0.1:9/cb" }),
    creates: true,
  },
  {
    name: "card payout",
    method: "post",
    path: () => "/v1/payouts/card",
    body: () => cardPayoutBody({ callbackUrl: "http://127.0.0.1:9/cb", billingDetails: { city: "Oslo" } }),
    creates: true,
  },
  {
    name: "auth",
    method: "post",
    path: () => "/api/v1/auth",
    body: () => ({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" }),
    creates: false,
  },
];

describe("no 5xx for damaged bodies", () => {
  for (const route of routes) {
    it(`${route.name}: a damaged body is a 4xx with errorMessage (or accepted), and a refused create writes nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(mutations, fc.option(fc.jsonValue(), { freq: 8 }), async (ops, whole) => {
          const body = whole ?? mutate(route.body(), ops);
          const before = rows();
          const res = await s.http[route.method](route.path())
            .set("authorization", auth)
            .set("content-type", "application/json")
            .send(JSON.stringify(body));
          expectClean(res);
          if (route.creates && res.status >= 400) expect(rows()).toEqual(before);
        }),
        { numRuns: 60 },
      );
    });
  }
});

describe("no 5xx for random control-plane input", () => {
  it("clock advance, scenarios, transaction completion, the webhook journal and the 3DS form", async () => {
    const text = fc.oneof(fc.string(), fc.constantFrom("P1D", "PT0S", "P99999Y", "2020-01-01", "-P1D", "P1M", "tx_x", "SUCCEED"));
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), text, fc.dictionary(fc.string(), fc.string()), async (json, word, query) => {
        const calls = [
          s.http.post("/_sandbox/clock/advance").send({ by: word }),
          s.http.post("/_sandbox/clock/advance").set("content-type", "application/json").send(JSON.stringify(json)),
          s.http.post("/_sandbox/scenarios").set("content-type", "application/json").send(JSON.stringify(json)),
          s.http.post(`/_sandbox/transactions/${encodeURIComponent(word)}/complete`).send({ status: word }),
          s.http.get("/_sandbox/webhooks").query(query),
          s.http
            .post(`/sandbox/3ds/${encodeURIComponent(word)}`)
            .type("form")
            .send({ outcome: word }),
        ];
        for (const res of await Promise.all(calls)) expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });
});

describe("no 5xx over the APM routes (issue 8)", () => {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
  const apmRoutes: Array<{ name: string; path: string; body: () => unknown; resign: boolean; creates: boolean }> = [
    ...["SMART_BANK_TRANSFER", "UPI_QR", "PIX_QR", "APPLE_PAY", "EXTERNAL_HPP_EFT"].map((m) => ({
      name: `APM pay-in ${m}`,
      path: "/api/v1/payments/apm",
      body: () => apmBody(m),
      resign: true,
      creates: true,
    })),
    { name: "APM payout", path: "/api/v1/payouts/apm", body: () => payoutBody(), resign: false, creates: true },
    {
      name: "wallet session by account",
      path: "/api/v1/wallet-pay/merchant-session-by-account",
      body: () => ({ validationUrl: "https://wallet.example/start", origin: "localhost", accountId: 2001 }),
      resign: false,
      creates: false,
    },
    {
      name: "wallet session",
      path: "/api/v1/wallet-pay/merchant-session",
      body: () => ({ validationUrl: "https://wallet.example/start", origin: "localhost", intentToken: "pi_1" }),
      resign: false,
      creates: false,
    },
  ];
  for (const route of apmRoutes) {
    it(`${route.name}: a damaged body (re-signed, so the checks behind the checksum run) is a 4xx or accepted`, async () => {
      await fc.assert(
        fc.asyncProperty(mutations, fc.option(fc.jsonValue(), { freq: 8 }), async (ops, whole) => {
          const damaged = whole ?? mutate(route.body(), ops);
          const body = route.resign && isObject(damaged) ? sign(damaged) : damaged;
          const before = rows();
          const res = await s.http
            .post(route.path)
            .set("authorization", auth)
            .set("referer", "https://shop.example")
            .set("content-type", "application/json")
            .send(JSON.stringify(body));
          expectClean(res);
          if (route.creates && res.status >= 400) expect(rows()).toEqual(before);
        }),
        { numRuns: 40 },
      );
    });
  }

  it("random answers on the HPP and QR pages, and random ids on the APM reads", async () => {
    const hpp = await s.http.post("/api/v1/payments/apm").set("authorization", auth).send(apmBody("EXTERNAL_HPP_EFT"));
    const qr = await s.http.post("/api/v1/payments/apm").set("authorization", auth).send(apmBody("UPI_QR"));
    const ids = [hpp.body.transactionId as string, qr.body.transactionId as string];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), fc.string()), fc.string(), fc.nat(), async (form, word, pick) => {
        const id = pick % 3 === 2 ? word : (ids[pick % 2] ?? word);
        const calls = [
          s.http
            .post(`/sandbox/hpp/${encodeURIComponent(id)}`)
            .type("form")
            .send({ ...form, outcome: pick % 5 === 0 ? word : "success" }),
          s.http
            .post(`/sandbox/qr/${encodeURIComponent(id)}`)
            .type("form")
            .send(form),
          s.http.get(`/sandbox/hpp/${encodeURIComponent(word)}`),
          s.http.get(`/api/v1/payments/apm/info/${encodeURIComponent(word)}`).set("authorization", auth),
          s.http.get(`/api/v1/payouts/apm/info/${encodeURIComponent(word)}`).set("authorization", auth),
        ];
        for (const res of await Promise.all(calls)) expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });
});
