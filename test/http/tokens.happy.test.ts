import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cardTokens } from "../../src/db/schema/index.js";
import { ManualClock } from "../../src/platform/clock.js";
import { hmacBase64 } from "../../src/platform/crypto.js";
import { timeOrderedIds } from "../../src/platform/ids.js";
import { BUILTIN, makeSandbox, sandboxWithReceiver, type TestSandbox } from "../helpers/harness.js";
import type { Receiver } from "../helpers/receiver.js";
import { BILLING, CARDS, chargeBody, gateway, tokenFor, tokenizeBody } from "./subscriptions.support.js";

let s: TestSandbox;
let receiver: Receiver;

beforeEach(async () => {
  ({ s, receiver } = await sandboxWithReceiver());
});

// a test may replace s with a sandbox of its own: that one is closed
afterEach(async () => {
  await s.close();
  await receiver.close();
});

const hooks = async () => {
  await s.ctx.work.runUntil();
  return receiver.received.map((h) => h.body as Record<string, unknown>);
};

describe("POST /payments/card/tokenize (docs/tokens.md)", () => {
  it("answers the Token with BIN data, the card's expiry and the 90-day default lifetime", async () => {
    const res = await gateway(s).post("/payments/card/tokenize", tokenizeBody({ metadata: { customer: "c-1" } }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      token: "tok_000001",
      cardMask: "411111******1111",
      expirationMonth: "12",
      expirationYear: "2030",
      cardBrand: "VISA",
      cardType: "CREDIT",
      issuingBank: "Sandbox Bank",
      cardCountry: "US",
      // T0 = 2026-01-15 + 90 days
      expirationDate: "2026-04-15",
      metadata: { customer: "c-1" },
    });
  });

  it.each(Object.entries(CARDS))("every test card tokenizes (rule 5): %s", async (_name, number) => {
    const res = await gateway(s).post("/payments/card/tokenize", tokenizeBody({ card: { number } }));
    expect(res.status).toBe(200);
    expect(res.body.cardMask).toBe(`${number.slice(0, 6)}******${number.slice(-4)}`);
  });

  it("the lifetime is the shorter of the default and the requested expirationDate", async () => {
    const shorter = await gateway(s).post("/payments/card/tokenize", tokenizeBody({ expirationDate: "2026-02-01" }));
    expect(shorter.body.expirationDate).toBe("2026-02-01");
    const longer = await gateway(s).post("/payments/card/tokenize", tokenizeBody({ expirationDate: "2031-01-01" }));
    expect(longer.body.expirationDate).toBe("2026-04-15");
    const today = await gateway(s).post("/payments/card/tokenize", tokenizeBody({ expirationDate: "2026-01-15" }));
    expect(today.body.expirationDate).toBe("2026-01-15");
  });

  it("SANDBOX_TOKEN_TTL_DAYS sets the default lifetime", async () => {
    await s.close();
    s = makeSandbox({ config: { tokenTtlDays: 10 } });
    const res = await gateway(s).post("/payments/card/tokenize", tokenizeBody());
    expect(res.body.expirationDate).toBe("2026-01-25");
  });

  it("keeps billing details and metadata with the token, for its merchant; sends no webhook", async () => {
    const token = await tokenFor(s, CARDS.visa, { metadata: { a: "1" }, callbackUrl: receiver.url });
    const row = s.ctx.db.select().from(cardTokens).all()[0]!;
    expect(row).toMatchObject({ token, merchantKey: BUILTIN.merchantKey, billingDetails: BILLING, metadata: { a: "1" } });
    expect(await hooks()).toEqual([]);
  });

  it("is idempotent on requestId: the same body gives the same token, another body a 409", async () => {
    const body = tokenizeBody();
    const a = await gateway(s).post("/payments/card/tokenize", body);
    const b = await gateway(s).post("/payments/card/tokenize", body);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(s.ctx.db.select().from(cardTokens).all()).toHaveLength(1);
    const c = await gateway(s).post("/payments/card/tokenize", { ...body, metadata: { x: "y" } });
    expect(c.status).toBe(409);
    expect(c.body.errorMessage).toBe("requestId already used with different parameters");
  });

  it("answers under /v1 too, and accepts merchantId as a numeric string", async () => {
    const res = await s.http
      .post("/v1/payments/card/tokenize")
      .set("authorization", await s.token())
      .send(tokenizeBody({ merchantId: "1001" }));
    expect(res.status).toBe(200);
  });
});

describe("POST /payments/card/charge (docs/tokens.md): the card payment path", () => {
  it.each([
    ["visa", CARDS.visa, { transactionStatus: "SUCCEED" }],
    ["mastercard", CARDS.mastercard, { transactionStatus: "SUCCEED" }],
    ["declined", CARDS.declined, { transactionStatus: "FAILED", declineCode: 2 }],
  ])("%s → %o with a signed card callback", async (_name, number, expected) => {
    const token = await tokenFor(s, number);
    const res = await gateway(s).post("/payments/card/charge", chargeBody(token, `${receiver.url}/cb`));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ transactionId: "tx_000001", ...expected });
    const [body] = await hooks();
    expect(body).toMatchObject({
      transactionId: "tx_000001",
      mid: BUILTIN.mid,
      transactionStatus: expected.transactionStatus,
      cardMask: `${number.slice(0, 6)}******${number.slice(-4)}`,
      orderAmount: 20.5,
      orderCurrency: "USD",
      billingDetails: BILLING,
    });
    const hook = receiver.received[0]!;
    expect(hook.query.get("paymentMethod")).toBe("card");
    expect(hook.headers["x-checksum"]).toBe(hmacBase64(BUILTIN.merchantSecret, `${BUILTIN.mid}|20.5|USD|tx_000001`));
  });

  it("4000000000003220 → CUSTOMER_VERIFICATION with a challenge; passing it sends SUCCEED", async () => {
    const token = await tokenFor(s, CARDS.threeDs);
    const res = await gateway(s).post("/payments/card/charge", chargeBody(token, `${receiver.url}/cb`));
    expect(res.body).toEqual({
      transactionId: "tx_000001",
      transactionStatus: "CUSTOMER_VERIFICATION",
      challengeUrl: "http://sandbox.test/sandbox/3ds/tx_000001",
      challengeUrlIframe: "http://sandbox.test/sandbox/3ds/tx_000001?mode=iframe",
    });
    const answer = await s.http.post("/sandbox/3ds/tx_000001").type("form").send({ outcome: "success" });
    expect(answer.status).toBe(303);
    expect((await hooks()).map((b) => b.transactionStatus)).toEqual(["CUSTOMER_VERIFICATION", "SUCCEED"]);
  });

  it("request billing details win over the token's; without them the token's are used", async () => {
    const token = await tokenFor(s);
    const own = { ...BILLING, firstName: "Grace", lastName: "Hopper" };
    await gateway(s).post("/payments/card/charge", chargeBody(token, `${receiver.url}/a`, { billingDetails: own }));
    await gateway(s).post("/payments/card/charge", chargeBody(token, `${receiver.url}/b`));
    const bodies = await hooks();
    expect(bodies.map((b) => (b.billingDetails as Record<string, unknown>).firstName).sort()).toEqual(["Ada", "Grace"]);
  });

  it("is idempotent on requestId (operation card_charge): same body → same transaction, no new webhook", async () => {
    const token = await tokenFor(s);
    const body = chargeBody(token, `${receiver.url}/cb`);
    const a = await gateway(s).post("/payments/card/charge", body);
    const b = await gateway(s).post("/payments/card/charge", body);
    expect(b.body).toEqual(a.body);
    expect(await hooks()).toHaveLength(1);
  });

  it("a token works through its expirationDate day and not after", async () => {
    await s.close();
    s = makeSandbox({ ids: timeOrderedIds(new ManualClock(Date.UTC(2026, 0, 15))) });
    const token = await tokenFor(s, CARDS.visa, { expirationDate: "2026-01-16" });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-01-16T23:59:59Z" });
    const ok = await gateway(s).post("/payments/card/charge", chargeBody(token, `${receiver.url}/cb`));
    expect(ok.body.transactionStatus).toBe("SUCCEED");
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT1S" });
    const late = await gateway(s).post("/payments/card/charge", chargeBody(token, `${receiver.url}/cb`));
    expect(late.status).toBe(400);
    expect(token).toMatch(/^tok_\w{20}$/);
    expect(late.body.errorMessage).toBe(`Token not found or expired: tok_****${token.slice(-4)}`);
  });
});
