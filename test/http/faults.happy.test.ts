/**
 * docs/webhooks.md#webhook-chaos, API side: scenario fault rules (httpStatus, latencyMs) on the
 * create routes, and SANDBOX_RATE_LIMIT.
 */
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { CARDS, cardPaymentBody } from "./payments.body.js";
import { chargeBody, gateway, tokenFor } from "./subscriptions.support.js";

let s: TestSandbox;
afterEach(() => s?.close());

const load = (rules: unknown[]) => s.http.post("/_sandbox/scenarios").send({ name: "faults", rules });
const transactions = () => s.ctx.db.$client.prepare("select count(*) as n from transactions").get() as { n: number };

describe("fault rules", () => {
  it("httpStatus by amount: 503 with {errorMessage}, nothing created, under /api/v1 and /v1; other amounts pass", async () => {
    s = makeSandbox();
    expect((await load([{ amount: "13.13", httpStatus: 503 }])).status).toBe(200);
    const token = await s.token();
    for (const prefix of ["/api/v1", "/v1"]) {
      const res = await s.http
        .post(`${prefix}/payments/card`)
        .set("authorization", token)
        .send(cardPaymentBody({ amount: "13.13" }));
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ errorMessage: expect.stringMatching(/HTTP 503/) });
    }
    expect(transactions().n).toBe(0);
    expect((await s.http.get("/_sandbox/webhooks")).body).toEqual([]);
    const ok = await s.http
      .post("/api/v1/payments/card")
      .set("authorization", token)
      .send(cardPaymentBody({ amount: "13.14" }));
    expect(ok.status).toBe(200);
    expect(transactions().n).toBe(1);
  });

  it("429 carries Retry-After; a card rule matches that card only; operation picks the route family", async () => {
    s = makeSandbox();
    await load([
      { card: CARDS.mastercard, httpStatus: 429 },
      { operation: "refund", httpStatus: 500 },
    ]);
    const g = gateway(s);
    const limited = await g.post("/payments/card", cardPaymentBody({ card: { number: CARDS.mastercard } }));
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBe("1");
    expect((await g.post("/payments/card", cardPaymentBody())).status).toBe(200);
    const refund = await g.post("/refunds/card", { requestId: "rf-1", transactionId: "tx_x", amount: "1.00" });
    expect(refund.status).toBe(500);
    expect(refund.body.errorMessage).toMatch(/HTTP 500/);
    // a one-click charge is a payment: the refund rule does not touch it
    const token = await tokenFor(s);
    expect((await g.post("/payments/card/charge", chargeBody(token, "https://shop.example/cb"))).status).toBe(200);
  });

  it("latencyMs waits that many real ms and then answers as usual", async () => {
    s = makeSandbox();
    await load([{ amount: "7.00", latencyMs: 120 }]);
    const g = gateway(s);
    const started = performance.now();
    const res = await g.post("/payments/card", cardPaymentBody({ amount: "7.00" }));
    expect(res.status).toBe(200);
    expect(res.body.transactionStatus).toBe("SUCCEED");
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });
});

describe("SANDBOX_RATE_LIMIT", () => {
  it("is parsed as N/sec|min|hour and refused otherwise", () => {
    expect(parseConfig(["--rate-limit", "40/min"], {}).rateLimit).toEqual({ limit: 40, windowMs: 60_000 });
    expect(parseConfig([], { SANDBOX_RATE_LIMIT: "5/s" }).rateLimit).toEqual({ limit: 5, windowMs: 1_000 });
    expect(parseConfig([], {}).rateLimit).toBeUndefined();
    expect(() => parseConfig(["--rate-limit", "fast"], {})).toThrow(/SANDBOX_RATE_LIMIT/);
  });

  it("per merchant: over the limit → 429 with Retry-After; another merchant is not counted with it", async () => {
    s = makeSandbox({ config: { rateLimit: { limit: 3, windowMs: 3_600_000 } } });
    await s.http.post("/_sandbox/scenarios").send({
      name: "other",
      merchants: [{ merchantKey: "rl_key", merchantSecret: "rl_secret", mid: "rl-mid", merchantId: 9301, accountId: 9401 }],
    });
    const token = await s.token();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await s.http.get("/api/v1/payments/card/status/tx_none").set("authorization", token)).status);
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
    const over = await s.http.get("/v1/payments/card/status/tx_none").set("authorization", token);
    expect(over.status).toBe(429);
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    expect(over.body.errorMessage).toMatch(/Rate limit/);
    const other = await s.token("rl_key", "rl_secret");
    expect((await s.http.get("/api/v1/payments/card/status/tx_none").set("authorization", other)).status).toBe(404);
  });
});
