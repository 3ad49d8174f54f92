/**
 * `paysandbox/testing` used exactly as a user's suite would: imported by the package name (through
 * package.json `exports`, the built dist/testing.js and its .d.ts), one sandbox per file.
 */

import { startSandbox, type TestSandbox } from "paysandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleDevice } from "../../src/platform/examples.js";
import { BILLING } from "../http/payments.body.js";

const payment = (sandbox: TestSandbox, over: Record<string, unknown> = {}) => ({
  requestId: crypto.randomUUID(),
  mid: sandbox.merchant.mid,
  card: { number: "4111111111111111", expMonth: "12", expYear: "2035", cvv: "123", requestThreeDSecure: false },
  amount: "20.50",
  currency: "USD",
  lang: "en",
  callbackUrl: `${sandbox.webhooks.url}/payments`,
  billingDetails: BILLING,
  order: { orderId: "order-1" },
  device: exampleDevice("vitest"),
  ...over,
});

describe("startSandbox()", () => {
  let sandbox: TestSandbox;

  beforeAll(async () => {
    sandbox = await startSandbox({
      startTime: "2026-03-01T09:00:00Z",
      scenario: {
        name: "my-shop",
        merchants: [
          { merchantKey: "shop_key", merchantSecret: "shop_secret", mid: "shop-mid", merchantId: 7001, accountId: 8001 },
        ],
        rules: [{ amount: "13.37", status: "FAILED", declineCode: 5 }],
      },
    });
  });
  afterAll(() => sandbox?.close());

  async function pay(over: Record<string, unknown> = {}) {
    const res = await fetch(`${sandbox.url}/api/v1/payments/card`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: await sandbox.auth() },
      body: JSON.stringify(payment(sandbox, over)),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it("serves the gateway for the scenario's merchant, with its rules, and receives its webhooks", async () => {
    expect(sandbox.merchant.merchantKey).toBe("shop_key");
    expect(sandbox.clock.now()).toMatch(/^2026-03-01T09:00/);
    const ok = await pay();
    expect(ok.body.transactionStatus).toBe("SUCCEED");
    const hook = await sandbox.webhooks.waitFor((h) => h.body.transactionId === ok.body.transactionId);
    expect(hook.path).toBe("/payments");
    expect(hook.query.paymentMethod).toBe("card");
    expect(hook.body.transactionStatus).toBe("SUCCEED");

    const declined = await pay({ amount: "13.37" });
    expect(declined.body).toMatchObject({ transactionStatus: "FAILED", declineCode: 5 });

    // what the file exercised, typed (docs/coverage.md)
    const report = await sandbox.coverage();
    const count = (id: string) => report.behaviours.find((b) => b.id === id)?.count;
    expect(count("card.payment.succeed")).toBe(1);
    expect(count("card.payment.failed.decline-5")).toBe(1);
    expect(count("webhook.delivered.first-attempt")).toBeGreaterThanOrEqual(1);
    expect(report.unseen).toContain("card.3ds.failed");
  });

  it("moves the clock and re-authenticates by itself past the token's expiry", async () => {
    const before = await sandbox.auth();
    const moved = await sandbox.clock.advance("P200D");
    expect(moved.now).toMatch(/^2026-09-17/);
    const after = await sandbox.auth();
    expect(after).not.toBe(before);
    expect((await pay()).status).toBe(200);
  });

  it("resets to a start time, keeping the scenario", async () => {
    await sandbox.reset({ startTime: "2027-01-01T00:00:00Z" });
    expect(sandbox.clock.now()).toMatch(/^2027-01-01T00:00/);
    expect(sandbox.webhooks.received).toHaveLength(0);
    expect((await pay({ amount: "13.37" })).body.declineCode).toBe(5);
  });

  it("runs beside another sandbox whose clock moves on its own", async () => {
    const other = await startSandbox({ startTime: new Date("2030-05-05T00:00:00Z") });
    try {
      await other.clock.advance({ to: "2031-01-01T00:00:00Z" });
      expect(other.clock.now()).toMatch(/^2031-01-01/);
      expect(other.merchant.merchantKey).toBe("sandbox_merchant_key");
      expect(sandbox.clock.now()).toMatch(/^2027-01-01/);
    } finally {
      await other.close();
    }
  });
});
