/**
 * The card mask keeps the number's length: the first 6 digits, one `*` per hidden
 * digit, the last 4, so a tester can tell which card was used. Every place that shows a stored card:
 * payment info and callback, the token and its one-click and subscription charges, payouts, the 3DS
 * page, the report and the dashboard.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cardMask } from "../../src/platform/cards.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { cardPaymentBody, threeDsBody } from "./payments.body.js";
import { payoutBody } from "./refunds.support.js";
import { csvRecords, report } from "./reports.support.js";
import { chargeBody, subscriptionBody, tokenizeBody } from "./subscriptions.support.js";

/** Luhn-valid numbers of 19 and 13 digits that no fixture names (the default outcome: SUCCEED). */
const LONG = "4111111111111111110";
const SHORT = "4111111111119";
const LONG_MASK = "411111*********1110";
const SHORT_MASK = "411111***1119";

let s: TestSandbox;
let auth: string;
let receiver: Receiver;
beforeEach(async () => {
  s = makeSandbox();
  auth = await s.token();
  receiver = await startReceiver();
});
afterEach(async () => {
  await s.close();
  await receiver.close();
});

const post = (path: string, body: unknown) =>
  s.http
    .post(path)
    .set("authorization", auth)
    .send(body as object);
const get = (path: string) => s.http.get(path).set("authorization", auth);

describe("cardMask keeps the number's length", () => {
  it("first 6, a star per hidden digit, last 4", () => {
    expect(cardMask("411111", "1111", 16)).toBe("411111******1111");
    expect(cardMask("411111", "1110", 19)).toBe(LONG_MASK);
    expect(cardMask("411111", "1119", 13)).toBe(SHORT_MASK);
    expect(cardMask("411111", "1111", 12)).toBe("411111**1111");
  });

  it("payment info and callback, token, one-click and subscription charges, payout, 3DS page, report, dashboard", async () => {
    const cb = `${receiver.url}/cb`;
    const paid = await post("/api/v1/payments/card", cardPaymentBody({ card: { number: LONG }, callbackUrl: cb }));
    expect(paid.body.transactionStatus).toBe("SUCCEED");
    expect((await get(`/api/v1/payments/card/info/${paid.body.transactionId}`)).body.cardMask).toBe(LONG_MASK);
    const short = await post("/api/v1/payments/card", cardPaymentBody({ card: { number: SHORT } }));
    expect((await get(`/api/v1/payments/card/info/${short.body.transactionId}`)).body.cardMask).toBe(SHORT_MASK);

    const tokenized = await post("/api/v1/payments/card/tokenize", tokenizeBody({ card: { number: LONG } }));
    expect(tokenized.body.cardMask).toBe(LONG_MASK);
    const charged = await post("/api/v1/payments/card/charge", chargeBody(tokenized.body.token, cb));
    expect((await get(`/api/v1/payments/card/info/${charged.body.transactionId}`)).body.cardMask).toBe(LONG_MASK);
    const sub = await post("/api/v1/payments/card/recurring", subscriptionBody(tokenized.body.token, cb));
    expect(sub.status).toBe(200);
    await s.http.post("/_sandbox/clock/advance").send({ by: "P1M" }).expect(200);
    auth = await s.token(); // the bearer token lives 30 virtual days

    const payout = await post("/api/v1/payouts/card", payoutBody({ card: { ...payoutBody().card, number: LONG } }));
    expect((await get(`/api/v1/payouts/card/info/${payout.body.transactionId}`)).body.cardMask).toBe(LONG_MASK);

    const challenged = await post("/api/v1/payments/card", threeDsBody(cb, { card: { number: LONG } }));
    expect(challenged.body.transactionStatus).toBe("CUSTOMER_VERIFICATION");
    expect((await s.http.get(`/sandbox/3ds/${challenged.body.transactionId}`)).text).toContain(LONG_MASK);

    await s.ctx.work.runUntil();
    const callbacks = receiver.received.map((h) => h.body as { cardMask?: string; transactionId?: string });
    expect(callbacks.length).toBeGreaterThanOrEqual(3);
    for (const body of callbacks) if (body.cardMask !== undefined) expect(body.cardMask).toBe(LONG_MASK);

    const csv = csvRecords(await report(s, { dateFrom: "2020-01-01", dateTo: "2030-01-01" }));
    const masks = csv.map((r) => r.cardMask);
    expect(masks.filter((m) => m === LONG_MASK).length).toBe(csv.length - 1);
    expect(masks).toContain(SHORT_MASK);
    expect(csv.length).toBeGreaterThanOrEqual(7);

    const dashboard = await s.http.get("/?limit=100").set("accept", "text/html");
    expect(dashboard.text).toContain(LONG_MASK);
    expect(dashboard.text).toContain(SHORT_MASK);
    const one = await s.http.get(`/dashboard/transactions/${paid.body.transactionId}`).set("accept", "text/html");
    expect(one.text).toContain(LONG_MASK);
  });
});
