import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
afterEach(() => s?.close());

const merchant = { merchantKey: "qa_key", merchantSecret: "qa_secret", mid: "qa-mid", merchantId: 5001, accountId: 6001 };

describe("scenario loading errors", () => {
  it.each([
    [{}, /name: /],
    [{ name: "x", surprise: 1 }, /surprise: unknown key/],
    [{ name: "x", merchants: [{ ...merchant, mid: 5 }] }, /merchants\.0\.mid/],
    [{ name: "x", merchants: [{ ...merchant, merchantId: "one" }] }, /merchants\.0\.merchantId/],
    [{ name: "x", merchants: [{ ...merchant, processingCurrency: "EURO" }] }, /merchants\.0\.processingCurrency/],
    [{ name: "x", fxRates: { USD: -1 } }, /fxRates\.USD/],
    [{ name: "x", fxRates: { ZZZ: 1 } }, /fxRates/],
    [{ name: "x", cards: [{ number: "4111111111111112" }] }, /cards\.0\.number: not a Luhn-valid/],
    [{ name: "x", cards: [{ number: "4242424242424242", payment: { status: "MAYBE" } }] }, /cards\.0\.payment\.status/],
    [{ name: "x", cards: [{ number: "4242424242424242", payment: { status: "FAILED", declineCode: 999 } }] }, /declineCode/],
    [{ name: "x", rules: [{ amount: "13.37" }] }, /rules\.0\.status/],
    [{ name: "x", rules: [{ amount: "abc", status: "FAILED" }] }, /rules\.0\.amount/],
    [{ name: "x", rules: [{ amount: "1", status: "PROCESSING", completeAfter: "soon" }] }, /rules\.0\.completeAfter/],
  ])("refuses %j naming the path, loading nothing", async (doc, message) => {
    s = makeSandbox();
    const res = await s.http.post("/_sandbox/scenarios").send(doc);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/^Invalid scenario/);
    expect(res.body.errorMessage).toMatch(message);
    expect(s.ctx.scenarios.all()).toEqual([]);
    expect(s.ctx.merchants.all()).toHaveLength(1);
  });

  it("refuses a merchant whose mid belongs to another merchant, and loads none of the file", async () => {
    s = makeSandbox();
    const res = await s.http.post("/_sandbox/scenarios").send({
      name: "clash",
      merchants: [
        { ...merchant, merchantKey: "ok_key", mid: "ok-mid", merchantId: 7001, accountId: 8001 },
        { ...merchant, mid: "sandbox-mid-001" },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/merchants\.1\.mid/);
    expect(s.ctx.merchants.byKey("ok_key")).toBeUndefined();
  });

  it("accepts steps and reloading a scenario by the same name replaces it", async () => {
    s = makeSandbox();
    expect(
      (await s.http.post("/_sandbox/scenarios").send({ name: "a", merchants: [merchant], steps: [{ advance: "P1D" }] })).status,
    ).toBe(200);
    expect(
      (await s.http.post("/_sandbox/scenarios").send({ name: "a", merchants: [{ ...merchant, merchantSecret: "rotated" }] }))
        .status,
    ).toBe(200);
    expect(s.ctx.scenarios.all()).toHaveLength(1);
    expect(await s.token("qa_key", "rotated")).toMatch(/^Bearer/);
  });
});
