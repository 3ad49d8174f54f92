import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cardTokens, transactions } from "../../src/db/schema/index.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { BILLING, chargeBody, gateway, seedTokenWithoutBilling, tokenFor, tokenizeBody } from "./subscriptions.support.js";

let s: TestSandbox;
beforeEach(() => {
  s = makeSandbox();
});
afterEach(async () => {
  await s.close();
});

const CB = "http://127.0.0.1:9/cb";

describe("tokenize errors (docs/tokens.md, docs/api.md#errors)", () => {
  it.each([
    ["another merchant's merchantId", { merchantId: 5001 }, "Invalid field: merchantId"],
    ["a non-numeric merchantId", { merchantId: "abc" }, "Invalid field: merchantId"],
    ["an expirationDate before today", { expirationDate: "2026-01-14" }, "Invalid field: expirationDate"],
    ["an expirationDate that is no date", { expirationDate: "2026-02-30" }, "Invalid field: expirationDate"],
    ["a card number failing Luhn", { card: { number: "4111111111111112" } }, "Invalid field: card.number"],
    ["an expired card", { card: { expMonth: "12", expYear: "2025" } }, "Invalid field: card.expYear"],
    ["a bad expMonth", { card: { expMonth: "13" } }, "Invalid field: card.expMonth"],
    ["a bad CVV", { card: { cvv: "12" } }, "Invalid field: card.cvv"],
    ["no CVV", { card: { cvv: undefined } }, "Missing required field: card.cvv"],
    ["no billingDetails", { billingDetails: undefined }, "Missing required field: billingDetails"],
    [
      "no billingDetails.email",
      { billingDetails: { ...BILLING, email: undefined } },
      "Missing required field: billingDetails.email",
    ],
    ["a bad billingDetails.country", { billingDetails: { ...BILLING, country: "XX1" } }, "Invalid field: billingDetails.country"],
    ["no requestId", { requestId: undefined }, "Missing required field: requestId"],
    ["metadata that is not strings", { metadata: { a: 1 } }, "Invalid field: metadata.a"],
  ])("%s → 400 %s, nothing stored", async (_name, over, message) => {
    const body = tokenizeBody(over as Record<string, unknown>);
    const res = await gateway(s).post("/payments/card/tokenize", JSON.parse(JSON.stringify(body)));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorMessage: message });
    expect(s.ctx.db.select().from(cardTokens).all()).toHaveLength(0);
  });

  it("a refused request leaves its requestId free", async () => {
    const body = tokenizeBody({ expirationDate: "2020-01-01" });
    expect((await gateway(s).post("/payments/card/tokenize", body)).status).toBe(400);
    const fixed = await gateway(s).post("/payments/card/tokenize", { ...body, expirationDate: "2026-03-01" });
    expect(fixed.status).toBe(200);
  });

  it("no bearer token → 401", async () => {
    const res = await s.http.post("/api/v1/payments/card/tokenize").send(tokenizeBody());
    expect(res.status).toBe(401);
  });
});

describe("one-click charge errors (docs/tokens.md, docs/api.md#errors)", () => {
  it("an unknown token → 400 `Token not found or expired: <masked token>`, no transaction", async () => {
    const res = await gateway(s).post("/payments/card/charge", chargeBody("tok_doesNotExist1234abcd", CB));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorMessage: "Token not found or expired: tok_****abcd" });
    expect(s.ctx.db.select().from(transactions).all()).toHaveLength(0);
  });

  it("an expired token (virtual clock) → the same message", async () => {
    const token = await tokenFor(s);
    await s.http.post("/_sandbox/clock/advance").send({ by: "P91D" });
    const res = await gateway(s).post("/payments/card/charge", chargeBody(token, CB));
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/^Token not found or expired: tok_\*\*\*\*/);
  });

  it("billing details missing from both request and token → 400", async () => {
    seedTokenWithoutBilling(s);
    const res = await gateway(s).post("/payments/card/charge", chargeBody("tok_noBillingAtAll0000", CB));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorMessage: "Billing details missing from both request and token" });
    const withOwn = await gateway(s).post(
      "/payments/card/charge",
      chargeBody("tok_noBillingAtAll0000", CB, { billingDetails: BILLING }),
    );
    expect(withOwn.body.transactionStatus).toBe("SUCCEED");
  });

  it.each([
    ["no callbackUrl", { callbackUrl: undefined }, "Missing required field: callbackUrl"],
    ["no successRedirectUrl", { successRedirectUrl: undefined }, "Missing required field: successRedirectUrl"],
    ["a callbackUrl that is no http URL", { callbackUrl: "ftp://x" }, "Invalid field: callbackUrl"],
    ["no cardToken", { cardToken: undefined }, "Missing required field: cardToken"],
    ["an amount finer than the currency", { amount: "1.234" }, "Invalid field: amount"],
    ["a zero amount", { amount: "0" }, "Invalid field: amount"],
    ["JPY with decimals", { amount: "10.5", currency: "JPY" }, "Invalid field: amount"],
    ["an unknown currency", { currency: "XYZ" }, "Invalid field: currency"],
    ["another merchant's mid", { mid: "other-mid" }, "Invalid field: mid"],
    [
      "a bad billingDetails.dateOfBirth",
      { billingDetails: { ...BILLING, dateOfBirth: "10/12/1990" } },
      "Invalid field: billingDetails.dateOfBirth",
    ],
  ])("%s → 400 %s", async (_name, over, message) => {
    const token = await tokenFor(s);
    const res = await gateway(s).post("/payments/card/charge", JSON.parse(JSON.stringify(chargeBody(token, CB, over))));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorMessage: message });
    expect(s.ctx.db.select().from(transactions).all()).toHaveLength(0);
  });

  it("malformed JSON → 400, never a 500", async () => {
    const res = await s.http
      .post("/api/v1/payments/card/charge")
      .set("authorization", await s.token())
      .set("content-type", "application/json")
      .send("{not json");
    expect(res.status).toBe(400);
  });
});
