/**
 * Input limits a user would expect, each a 400 naming the field, changing nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { cardPaymentBody, threeDsBody } from "./payments.body.js";
import { advance, chargeBody, gateway, subscriptionBody, tokenFor } from "./subscriptions.support.js";

let s: TestSandbox;
afterEach(() => s?.close());

const longUrl = `https://shop.example/${"a".repeat(2049 - "https://shop.example/".length)}`;
const okUrl = longUrl.slice(0, 2048);

describe("callbackUrl is at most 2,048 characters on every route that takes one", () => {
  it("card payment, one-click charge and subscription: 2,049 → 400 Invalid field: callbackUrl", async () => {
    s = makeSandbox();
    const g = gateway(s);
    const token = await tokenFor(s);
    const cases: Array<[string, Record<string, unknown>]> = [
      ["/payments/card", threeDsBody(longUrl)],
      ["/payments/card/charge", chargeBody(token, longUrl)],
      ["/payments/card/recurring", subscriptionBody(token, longUrl)],
    ];
    for (const [path, body] of cases) {
      const res = await g.post(path, body);
      expect(res.status, path).toBe(400);
      expect(res.body.errorMessage, path).toBe("Invalid field: callbackUrl");
    }
    expect((await s.http.get("/_sandbox/webhooks")).body).toEqual([]);
    // 2,048 is accepted
    expect((await g.post("/payments/card", threeDsBody(okUrl))).status).toBe(200);
    expect((await g.post("/payments/card", cardPaymentBody({ callbackUrl: okUrl }))).status).toBe(200);
  });
});

describe("scenario limits", () => {
  const scenario = (over: Record<string, unknown>) => ({ name: "limits", ...over });

  it("fx rates outside 0.000001 … 1,000,000,000 → 400 naming fxRates.<currency>; nothing loads", async () => {
    s = makeSandbox();
    for (const rate of [1e21, 1e-25, 0, -1]) {
      const res = await s.http.post("/_sandbox/scenarios").send(scenario({ fxRates: { USD: rate } }));
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toMatch(/fxRates\.USD/);
    }
    expect(s.ctx.scenarios.all()).toEqual([]);
    expect((await s.http.post("/_sandbox/scenarios").send(scenario({ fxRates: { USD: 1e9, JPY: 1e-6 } }))).status).toBe(200);
  });

  it("a document over 256 KiB → 400; more than 50 scenarios at once → 400 naming name; a reload replaces", async () => {
    s = makeSandbox();
    const big = await s.http.post("/_sandbox/scenarios").send(scenario({ description: "x".repeat(300 * 1024) }));
    expect(big.status).toBe(400);
    expect(big.body.errorMessage).toMatch(/at most 262144/);
    for (let i = 0; i < 50; i++) {
      expect((await s.http.post("/_sandbox/scenarios").send({ name: `s${i}` })).status).toBe(200);
    }
    const over = await s.http.post("/_sandbox/scenarios").send({ name: "s50" });
    expect(over.status).toBe(400);
    expect(over.body.errorMessage).toMatch(/name: 50 scenarios are loaded/);
    expect((await s.http.post("/_sandbox/scenarios").send({ name: "s7", description: "again" })).status).toBe(200);
    expect(s.ctx.scenarios.all()).toHaveLength(50);
  });
});

describe("the clock stays within 9999-01-01", () => {
  it("an advance past it, or a duration that does not fit, → 400 naming by/to; the clock does not move", async () => {
    s = makeSandbox();
    const before = (await s.http.get("/_sandbox/clock")).body.now;
    for (const body of [{ by: "P99999999999999999999Y" }, { to: "9999-06-01T00:00:00Z" }]) {
      const res = await s.http.post("/_sandbox/clock/advance").send(body);
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toMatch(/^Invalid field: (by|to) \(the clock cannot pass 9999-01-01/);
    }
    // repeated century jumps stop at the limit instead of passing it
    let last = 200;
    for (let i = 0; i < 90 && last === 200; i++) last = (await advance(s, "P99Y")).status;
    expect(last).toBe(400);
    expect((await s.http.get("/_sandbox/clock")).body.now < "9999-01-01T00:00:00.001Z").toBe(true);
    expect(before).not.toBe((await s.http.get("/_sandbox/clock")).body.now);
  });

  it("SANDBOX_START_TIME after 9999-01-01 is refused at start", () => {
    expect(() => parseConfig([], { SANDBOX_START_TIME: "9999-12-31T00:00:00Z" })).toThrow(/SANDBOX_START_TIME.*9999-01-01/);
  });
});
