import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config.js";
import { type AppContext, createContext } from "../../src/context.js";
import { inTransaction } from "../../src/db/client.js";
import { transactions, webhookDeliveries } from "../../src/db/schema/index.js";
import { cardMask, lookupBin, readCard } from "../../src/modules/payments/card.js";
import { ratio } from "../../src/modules/payments/fx.js";
import type { AuthorizeInput } from "../../src/modules/payments/payments.service.js";
import { ManualClock } from "../../src/platform/clock.js";
import { BUILTIN_MERCHANT } from "../../src/platform/fixtures.js";
import { sequentialIds } from "../../src/platform/ids.js";
import { T0 } from "../helpers/harness.js";

const MINUTE = 60_000;
const VISA = "4111111111111111";
const THREE_DS = "4000000000003220";
const DECLINED = "4000000000000002";

let ctx: AppContext;
let clock: ManualClock;

beforeEach(() => {
  clock = new ManualClock(T0);
  ctx = createContext({ config: defaultConfig({ publicUrl: "http://sandbox.test" }), clock, ids: sequentialIds() });
});

afterEach(async () => {
  await ctx.work.idle();
  await ctx.webhooks.close();
  ctx.db.$client.close();
});

const card = (number: string) => readCard({ number, expMonth: "12", expYear: "2030", cvv: "737" }, ctx.outcomes, clock);

function input(over: Partial<AuthorizeInput> = {}): AuthorizeInput {
  return {
    merchant: BUILTIN_MERCHANT,
    kind: "card_payment",
    requestId: "r1",
    card: card(VISA),
    amountMinor: 2050,
    currency: "USD",
    flow: "payment",
    threeDSRequested: false,
    callbackUrl: "http://127.0.0.1:9/cb",
    successRedirectUrl: null,
    failureRedirectUrl: null,
    ...over,
  };
}

const authorize = (over: Partial<AuthorizeInput> = {}) => inTransaction(ctx.db, () => ctx.payments.authorize(input(over)));
const deliveries = () => ctx.db.select().from(webhookDeliveries).all();
const row = (id: string) => ctx.db.select().from(transactions).where(eq(transactions.id, id)).get()!;

function loadScenario(doc: Record<string, unknown>) {
  ctx.scenarios.load({ name: "unit", ...doc }, "test");
}

describe("outcome engine", () => {
  const decide = (number: string, flow: "payment" | "recurring_first" | "recurring_later" | "payout", threeDSRequested = false) =>
    ctx.outcomes.decide({ profile: ctx.outcomes.profileFor(number), flow, amountMinor: 1000, currency: "USD", threeDSRequested });

  it("maps each test card's columns (docs/cards.md)", () => {
    expect(decide(VISA, "payment")).toEqual({ status: "SUCCEED" });
    expect(decide(THREE_DS, "payment")).toEqual({ status: "CUSTOMER_VERIFICATION" });
    expect(decide(THREE_DS, "recurring_first")).toEqual({ status: "CUSTOMER_VERIFICATION" });
    expect(decide(THREE_DS, "recurring_later")).toEqual({ status: "SUCCEED" });
    expect(decide(DECLINED, "payment")).toEqual({ status: "FAILED", declineCode: 2 });
    expect(decide(DECLINED, "recurring_first")).toEqual({ status: "SUCCEED" });
    expect(decide(DECLINED, "recurring_later")).toEqual({ status: "FAILED", declineCode: 5 });
    expect(decide(DECLINED, "payout")).toEqual({ status: "FAILED", declineCode: 2 });
  });

  it("turns an approval into a challenge when 3DS is requested, but never for merchant-initiated flows", () => {
    expect(decide(VISA, "payment", true)).toEqual({ status: "CUSTOMER_VERIFICATION" });
    expect(decide("4242424242424242", "payment", true)).toEqual({ status: "CUSTOMER_VERIFICATION" });
    expect(decide(DECLINED, "payment", true)).toEqual({ status: "FAILED", declineCode: 2 });
    expect(decide(VISA, "recurring_later", true)).toEqual({ status: "SUCCEED" });
  });

  it("gives opaque profiles that never contain the number", () => {
    expect(ctx.outcomes.profileFor(VISA)).toBe("test:0");
    expect(ctx.outcomes.profileFor("4242424242424242")).toBe("default");
    loadScenario({ cards: [{ number: "4242424242424242", payment: { status: "FAILED", declineCode: 5 } }] });
    const p = ctx.outcomes.profileFor("4242424242424242");
    expect(p).toBe("scenario:unit:0");
    expect(p).not.toContain("4242");
  });

  it("rules beat cards, match the amount in any spelling, and the currency only when given; not for payouts", () => {
    loadScenario({
      cards: [{ number: "4242424242424242", payment: { status: "FAILED", declineCode: 6 } }],
      rules: [
        { amount: "13.370", status: "FAILED", declineCode: 5 },
        { amount: "42", currency: "EUR", status: "PROCESSING", completeAfter: "PT5M" },
      ],
    });
    const d = (number: string, amountMinor: number, currency: string, flow: "payment" | "payout" = "payment") =>
      ctx.outcomes.decide({ profile: ctx.outcomes.profileFor(number), flow, amountMinor, currency, threeDSRequested: false });
    expect(d(VISA, 1337, "USD")).toEqual({ status: "FAILED", declineCode: 5 });
    expect(d("4242424242424242", 1337, "USD")).toEqual({ status: "FAILED", declineCode: 5 });
    expect(d("4242424242424242", 1338, "USD")).toEqual({ status: "FAILED", declineCode: 6 });
    expect(d(VISA, 4200, "EUR")).toEqual({ status: "PROCESSING", completeAfter: "PT5M" });
    expect(d(VISA, 4200, "USD")).toEqual({ status: "SUCCEED" });
    expect(d(VISA, 1337, "USD", "payout")).toEqual({ status: "SUCCEED" });
  });

  it("forgets a scenario's cards and rules after a reset", async () => {
    loadScenario({
      cards: [{ number: "4242424242424242", payment: { status: "FAILED" } }],
      rules: [{ amount: "10", status: "FAILED" }],
    });
    expect(ctx.outcomes.profileFor("4242424242424242")).toBe("scenario:unit:0");
    await ctx.control.reset();
    expect(ctx.outcomes.profileFor("4242424242424242")).toBe("default");
    expect(decide(VISA, "payment")).toEqual({ status: "SUCCEED" });
  });
});

describe("card data", () => {
  it("keeps BIN, last 4, expiry, holder, brand and profile only", () => {
    const c = readCard(
      { number: "5500000000000004", expMonth: "01", expYear: "2026", cvv: "1234", cardHolderName: " Ada " },
      ctx.outcomes,
      clock,
    );
    expect(c).toEqual({
      bin: "550000",
      last4: "0004",
      length: 16,
      expMonth: "01",
      expYear: "2026",
      holder: "Ada",
      brand: "MASTERCARD",
      profile: "test:1",
    });
    expect(cardMask(c.bin, c.last4, c.length)).toBe("550000******0004");
  });

  it("accepts the current month and refuses the previous one by the virtual clock", () => {
    expect(() => readCard({ number: VISA, expMonth: "01", expYear: "2026" }, ctx.outcomes, clock)).not.toThrow();
    expect(() => readCard({ number: VISA, expMonth: "12", expYear: "2025" }, ctx.outcomes, clock)).toThrow(
      "Invalid field: card.expYear",
    );
    clock.advanceTo(Date.UTC(2026, 1, 1));
    expect(() => readCard({ number: VISA, expMonth: "01", expYear: "2026" }, ctx.outcomes, clock)).toThrow(
      "Invalid field: card.expYear",
    );
  });

  it("names the field under the given path", () => {
    expect(() =>
      readCard({ number: "4111111111111112", expMonth: "12", expYear: "2030" }, ctx.outcomes, clock, "cardDetails"),
    ).toThrow("Invalid field: cardDetails.number");
    expect(() => readCard({ number: VISA, expMonth: "12", expYear: "2030", cvv: "12" }, ctx.outcomes, clock)).toThrow(
      "Invalid field: card.cvv",
    );
  });

  it("looks up the narrowest BIN range", () => {
    expect(lookupBin("411111")).toMatchObject({ brand: "VISA", type: "CREDIT", country: "US" });
    expect(lookupBin("424242")).toMatchObject({ brand: "VISA", type: null });
    expect(lookupBin("999999")).toBeUndefined();
  });
});

describe("FX ratio", () => {
  it("is processed per order unit with at most 10 decimals", () => {
    expect(ratio(1, 1.25)).toBe("0.8");
    expect(ratio(1.25, 1)).toBe("1.25");
    expect(ratio(1, 1.08)).toBe("0.9259259259");
    expect(ratio(162.5, 1)).toBe("162.5");
  });
});

describe("PaymentService.authorize", () => {
  it("writes the row and one webhook for a final outcome", () => {
    const r = authorize();
    expect(r).toMatchObject({ transactionId: "tx_000001", transactionStatus: "SUCCEED" });
    expect(r.declineCode).toBeUndefined();
    expect(row(r.transactionId)).toMatchObject({
      status: "SUCCEED",
      cardBin: "411111",
      cardLast4: "1111",
      cardProfile: "test:0",
      dueAt: null,
    });
    expect(deliveries().map((d) => d.eventStatus)).toEqual(["SUCCEED"]);
  });

  it("sets a 30-minute deadline on a challenge and hands out the page URLs", () => {
    const r = authorize({ card: card(THREE_DS) });
    expect(r.challengeUrl).toBe("http://sandbox.test/sandbox/3ds/tx_000001");
    expect(r.challengeUrlIframe).toBe("http://sandbox.test/sandbox/3ds/tx_000001?mode=iframe");
    expect(row(r.transactionId)).toMatchObject({ dueAt: T0 + 30 * MINUTE, dueStatus: "FAILED", dueDeclineCode: 4 });
  });

  it("sends no card callback without a callbackUrl (scheduled subscription charges)", async () => {
    loadScenario({
      cards: [{ number: "4242424242424242", recurring: { later: { status: "PROCESSING", completeAfter: "PT1M" } } }],
    });
    const r = authorize({
      kind: "subscription_charge",
      flow: "recurring_later",
      card: card("4242424242424242"),
      callbackUrl: null,
    });
    expect(r.transactionStatus).toBe("PROCESSING");
    await ctx.control.advance({ by: "PT1M" });
    expect(row(r.transactionId).status).toBe("SUCCEED");
    expect(deliveries()).toHaveLength(0);
  });

  it("calls onSettled listeners inside the transaction when a waiting transaction ends, not for immediate outcomes", async () => {
    const settled: string[] = [];
    ctx.transactions.onSettled((r) => {
      expect(ctx.db.$client.inTransaction).toBe(true);
      settled.push(`${r.id}:${r.status}:${r.declineCode ?? ""}`);
    });
    authorize();
    const answered = authorize({ requestId: "r2", card: card(THREE_DS) });
    const timedOut = authorize({ requestId: "r3", card: card(THREE_DS) });
    expect(settled).toEqual([]);
    ctx.payments.answerChallenge(answered.transactionId, "success");
    await ctx.control.advance({ by: "PT30M" });
    expect(settled).toEqual([`${answered.transactionId}:SUCCEED:`, `${timedOut.transactionId}:FAILED:4`]);
  });

  it("declines with 15 when a conversion has no rate", () => {
    ctx.scenarios.load(
      {
        name: "fx",
        merchants: [
          {
            merchantKey: "fx_key",
            merchantSecret: "s",
            mid: "fx-mid",
            merchantId: 7001,
            accountId: 8001,
            processingCurrency: "EUR",
          },
        ],
      },
      "test",
    );
    const merchant = ctx.merchants.byKey("fx_key")!;
    const r = authorize({ merchant, currency: "AFN", amountMinor: 1000 });
    expect(r).toMatchObject({ transactionStatus: "FAILED", declineCode: 15 });
    const ok = authorize({ merchant, requestId: "r2", currency: "USD", amountMinor: 1080 });
    expect(row(ok.transactionId)).toMatchObject({
      processedCurrency: "EUR",
      processedAmount: 1000,
      conversionRate: "0.9259259259",
    });
  });
});
