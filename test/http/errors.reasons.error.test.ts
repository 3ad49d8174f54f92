/**
 * docs/api.md#errors: a 400 lists every problem of the body, each with the reason a person
 * needs, while `errorMessage` stays the interface's message for the first one. Nothing changes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";

let s: TestSandbox;
afterEach(() => s?.close());

async function post(body: unknown) {
  const token = await s.token();
  return s.http
    .post("/api/v1/payments/card")
    .set("authorization", token)
    .send(body as object);
}

describe("400 reasons", () => {
  it("lists a JSON-number amount, an unknown currency and a non-Luhn card number together", async () => {
    s = makeSandbox();
    const res = await post(cardPaymentBody({ amount: 20.5, currency: "XYZ", card: { number: "4111111111111112" } }));
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe("Invalid field: amount");
    expect(res.body.errors).toEqual([
      { field: "amount", message: 'must be a string of major units, e.g. "20.50" (got the number 20.5)' },
      { field: "currency", message: 'expected an ISO 4217 currency code such as "USD"' },
      { field: "card.number", message: expect.stringMatching(/Luhn/) },
    ]);
    const list = await s.http.get("/_sandbox/webhooks");
    expect(list.body).toEqual([]);
  });

  it("says how many decimals the currency takes, and lists the card problem after it", async () => {
    s = makeSandbox();
    const usd = await post(cardPaymentBody({ amount: "20.505", card: { number: "4111111111111112" } }));
    expect(usd.body.errorMessage).toBe("Invalid field: amount");
    expect(usd.body.errors).toEqual([
      { field: "amount", message: "at most 2 decimals for USD" },
      { field: "card.number", message: expect.stringMatching(/Luhn/) },
    ]);
    const jpy = await post(cardPaymentBody({ amount: "100.5", currency: "JPY" }));
    expect(jpy.body.errors).toEqual([{ field: "amount", message: "no decimals for JPY" }]);
  });

  it("names missing fields as required and enum values as the choices", async () => {
    s = makeSandbox();
    const body = cardPaymentBody();
    delete (body as Record<string, unknown>).lang;
    const res = await post({ ...body, card: { ...body.card, requestThreeDSecure: "yes" } });
    expect(res.body.errorMessage).toBe("Invalid field: card.requestThreeDSecure");
    expect(res.body.errors).toEqual([
      { field: "card.requestThreeDSecure", message: "expected a boolean, got a string" },
      { field: "lang", message: "required" },
    ]);
    const complete = await s.http.post("/_sandbox/transactions/tx_x/complete").send({ status: "DONE" });
    expect(complete.body).toEqual({
      errorMessage: "Invalid field: status",
      errors: [{ field: "status", message: 'expected one of "SUCCEED", "FAILED"' }],
    });
  });

  it("gives an expired card its reason, and a malformed body one problem", async () => {
    s = makeSandbox();
    const res = await post(cardPaymentBody({ card: { expYear: "2020" } }));
    expect(res.body.errorMessage).toBe("Invalid field: card.expYear");
    expect(res.body.errors[0]).toEqual({ field: "card.expYear", message: expect.stringMatching(/expired: 12\/2020/) });
    const bad = await s.http.post("/api/v1/auth").set("content-type", "application/json").send("{");
    const where = 'Malformed JSON in request body at line 1, column 2 (offset 1): expected "}"';
    expect(bad.body).toEqual({ errorMessage: where, errors: [{ field: "body", message: where }] });
  });
});
