/**
 * A refused value is never echoed where it could be a secret (docs/cards.md "Card data"):
 * a CVV, a national id or a merchant secret sent as a JSON number where a string belongs is a 400
 * whose reason says "got a number", in the answer and on the log line alike; the log line carries
 * the first reason, so an echoed value would be a CVV in the log. An amount keeps its value in the
 * reason (`got the number 20.5`), the example of docs/api.md.
 */
import { Writable } from "node:stream";
import pino from "pino";
import type supertest from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { defaultConfig } from "../../src/config.js";
import { type AppContext, createContext } from "../../src/context.js";
import { ManualClock } from "../../src/platform/clock.js";
import { agentOf, T0 } from "../helpers/harness.js";
import { apmBody } from "./apm.support.js";
import { BILLING, cardPaymentBody } from "./payments.body.js";

const lines: string[] = [];
let ctx: AppContext;
let http: ReturnType<typeof supertest>;
let token: string;

beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  ctx = createContext({
    config: defaultConfig({ publicUrl: "http://sandbox.test" }),
    clock: new ManualClock(T0),
    logger: pino({ level: "trace" }, stream),
  });
  http = agentOf(createApp(ctx).fetch);
  token = (
    await http.post("/api/v1/auth").send({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" })
  ).body.token;
});
afterAll(async () => {
  await ctx.webhooks.close();
  ctx.db.$client.close();
});

/** Posts `body`, expects a 400 naming `field` with a reason ending "got a number", and no trace of `secret` in the answer or the log. */
async function refusedWithout(path: string, body: object, field: string, secret: number) {
  const before = lines.length;
  const res = await http.post(path).set("authorization", token).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.errorMessage).toBe(`Invalid field: ${field}`);
  const problem = (res.body.errors as Array<{ field: string; message: string }>).find((p) => p.field === field);
  expect(problem?.message).toMatch(/got a number\)?$/);
  const logged = lines.slice(before).join("");
  expect(logged).toContain(`"errorMessage":"Invalid field: ${field}: `);
  const bare = new RegExp(`(?<![\\w-])${secret}(?![\\w-])`);
  expect(JSON.stringify(res.body)).not.toMatch(bare);
  expect(logged).not.toMatch(bare);
}

describe("a secret sent as a JSON number is neither echoed nor logged", () => {
  it("a CVV: card payment, tokenize, card payout", async () => {
    await refusedWithout("/api/v1/payments/card", cardPaymentBody({ card: { cvv: 8317 } }), "card.cvv", 8317);
    await refusedWithout(
      "/api/v1/payments/card/tokenize",
      {
        requestId: "tok-cvv-number",
        merchantId: 1001,
        card: { number: "4111111111111111", expMonth: "12", expYear: "2030", cvv: 9426 },
        billingDetails: BILLING,
      },
      "card.cvv",
      9426,
    );
    await refusedWithout(
      "/v1/payouts/card",
      {
        requestId: "po-cvv-number",
        mid: "sandbox-mid-001",
        userEmail: "jane@example.com",
        amount: "1.00",
        card: { number: "4111111111111111", cardHolder: "Jane Doe", expMonth: "12", expYear: "2030", cvv: 738 },
      },
      "card.cvv",
      738,
    );
  });

  it("a national id (tokenize's socialSecurityNumber, an APM shopper's ssn and identityCode)", async () => {
    await refusedWithout(
      "/api/v1/payments/card/tokenize",
      {
        requestId: "tok-ssn-number",
        merchantId: 1001,
        card: { number: "4111111111111111", expMonth: "12", expYear: "2030" },
        billingDetails: BILLING,
        socialSecurityNumber: 78051120,
      },
      "socialSecurityNumber",
      78051120,
    );
    const apm = apmBody("SMART_E_WALLET");
    const billing = apm.billingDetails as Record<string, unknown>;
    await refusedWithout(
      "/api/v1/payments/apm",
      { ...apm, billingDetails: { ...billing, ssn: 66612345 } },
      "billingDetails.ssn",
      66612345,
    );
    await refusedWithout(
      "/api/v1/payments/apm",
      { ...apm, billingDetails: { ...billing, identityCode: 73190042 } },
      "billingDetails.identityCode",
      73190042,
    );
  });

  it("a merchant secret", async () => {
    const before = lines.length;
    const res = await http.post("/api/v1/auth").send({ merchantKey: "sandbox_merchant_key", merchantSecret: 52718 });
    expect(res.body.errors).toEqual([{ field: "merchantSecret", message: "expected a string, got a number" }]);
    expect(lines.slice(before).join("")).not.toContain("52718");
  });

  it("an amount still shows what was sent (docs/api.md: got the number 20.5)", async () => {
    const res = await http
      .post("/api/v1/payments/card")
      .set("authorization", token)
      .send(cardPaymentBody({ amount: 20.5 }));
    expect(res.body.errors[0]).toEqual({
      field: "amount",
      message: 'must be a string of major units, e.g. "20.50" (got the number 20.5)',
    });
  });
});
