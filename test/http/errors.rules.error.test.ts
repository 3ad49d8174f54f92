/**
 * Each refusal of an amount or a body says its own rule (docs/api.md, errors): what is left to
 * refund, that an amount must be positive, the largest amount, and where a malformed JSON body
 * breaks. `errorMessage` keeps the interface's `Invalid field: x` shape.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";
import { client } from "./refunds.support.js";

let s: TestSandbox;
let api: ReturnType<typeof client>;

beforeEach(async () => {
  s = makeSandbox();
  const token = await s.token();
  api = client(s, () => token);
});
afterEach(() => s.close());

describe("amount reasons", () => {
  it("a refund above what is left says how much is left", async () => {
    const tx = await api.pay({ amount: "20.50" });
    const res = await api.refund(tx, "30.00");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorMessage: "Invalid field: amount",
      errors: [{ field: "amount", message: "30.00 is more than the 20.50 left to refund" }],
    });
    expect((await api.refund(tx, "5.00")).status).toBe(200);
    const after = await api.refund(tx, "16.00");
    expect(after.body.errors).toEqual([{ field: "amount", message: "16.00 is more than the 15.50 left to refund" }]);
  });

  it.each([
    ["-5.00", 'must be positive, e.g. "20.50"'],
    ["0.00", 'must be positive, e.g. "20.50"'],
    ["+5.00", 'must be a string of major units, e.g. "20.50"'],
    ["20,50", 'must be a string of major units, e.g. "20.50"'],
  ])("amount %s → %s", async (amount, reason) => {
    const res = await api.post("/api/v1/payments/card", cardPaymentBody({ amount }));
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe("Invalid field: amount");
    expect(res.body.errors).toEqual([{ field: "amount", message: reason }]);
  });

  it("an amount too large states the maximum in the currency's units", async () => {
    const usd = await api.post("/api/v1/payments/card", cardPaymentBody({ amount: "90071992547409.92" }));
    expect(usd.body.errorMessage).toBe("Invalid field: amount");
    expect(usd.body.errors).toEqual([{ field: "amount", message: "must be at most 90071992547409.91 USD" }]);
    const jpy = await api.post("/api/v1/payments/card", cardPaymentBody({ amount: "9007199254740992", currency: "JPY" }));
    expect(jpy.body.errors).toEqual([{ field: "amount", message: "must be at most 9007199254740991 JPY" }]);
    expect((await api.post("/api/v1/payments/card", cardPaymentBody({ amount: "90071992547409.91" }))).status).toBe(200);
  });
});

describe("malformed JSON says where", () => {
  it.each([
    ["{", "line 1, column 2"],
    ['{"amount": "1",\n  "x": }', "line 2, column 8"],
    ['{"a":1}}', "line 1, column 8"],
  ])("%j → %s", async (text, where) => {
    const res = await s.http.post("/api/v1/auth").set("content-type", "application/json").send(text);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(new RegExp(`^Malformed JSON in request body at ${where} \\(offset \\d+\\): .+`));
    expect(res.body.errors).toEqual([{ field: "body", message: res.body.errorMessage }]);
  });

  it("on the control plane too", async () => {
    const res = await s.http.post("/_sandbox/clock/advance").set("content-type", "application/json").send('{"by": PT3M}');
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/^Malformed JSON in request body at line 1, column 8 \(offset 7\): /);
  });
});
