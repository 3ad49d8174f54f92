import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { subscriptions, transactions } from "../../src/db/schema/index.js";
import { hmacBase64 } from "../../src/platform/crypto.js";
import { BUILTIN, makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { advance, BILLING, CARDS, gateway, subscriptionBody, subscriptionCallbacks, tokenFor } from "./subscriptions.support.js";

let s: TestSandbox;
let receiver: Receiver;

beforeEach(async () => {
  s = makeSandbox(); // T0 = 2026-01-15T12:00:00Z
  receiver = await startReceiver();
});

afterEach(async () => {
  await s.close();
  await receiver.close();
});

type Json = Record<string, unknown>;
const PATH = "/payments/card/recurring";

async function subscribe(number: string = CARDS.visa, over: Json & { plan?: Json } = {}) {
  const token = await tokenFor(s, number);
  const res = await gateway(s).post(PATH, subscriptionBody(token, `${receiver.url}/subs?shop=1`, over));
  expect(res.status).toBe(200);
  return res.body as Json;
}
const get = async (id: unknown) => (await gateway(s).get(`${PATH}/${id}`)).body as Json;
const put = (id: unknown, body: Json) => gateway(s).put(`${PATH}/${id}`, body);
/** [chargeDate, transactionStatus, nextChargeDate] of each subscription callback, oldest first. */
const charges = async (id: unknown) =>
  (await subscriptionCallbacks(s, id as string)).map((b) => [b.chargeDate, b.transactionStatus, b.nextChargeDate]);
const cardCallbacks = () =>
  receiver.received.filter((h) => h.path === "/subs" && (h.body as Json).mid !== undefined).map((h) => h.body as Json);

describe("create (docs/subscriptions.md, docs/lifecycles.md#subscriptions)", () => {
  it("4111…: the first charge runs now → ACTIVE, nextChargeDate = startDate + 1 month, reported by a card callback", async () => {
    const res = await subscribe(CARDS.visa, { metadata: { plan: "gold" } });
    expect(res).toEqual({
      subscriptionId: "sub_000001",
      status: "ACTIVE",
      transactionId: "tx_000001",
      transactionStatus: "SUCCEED",
      declineCode: null,
      challengeUrl: null,
      challengeUrlIframe: null,
      nextChargeDate: "2026-02-15",
    });
    await s.ctx.work.runUntil();
    const [card] = cardCallbacks();
    expect(card).toMatchObject({ transactionId: "tx_000001", mid: BUILTIN.mid, transactionStatus: "SUCCEED", orderAmount: 9.99 });
    expect(await subscriptionCallbacks(s, "sub_000001")).toEqual([]);

    expect(await get("sub_000001")).toEqual({
      ...res,
      createdAt: "2026-01-15T12:00:00.000Z",
      plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2026-01-15", endDate: null },
      billingDetails: BILLING,
      metadata: { plan: "gold" },
      failureCount: 0,
    });
  });

  it("skipFirstCharge → TRIALING, no charge, nextChargeDate = startDate; the charge runs at 00:00 UTC of it", async () => {
    const res = await subscribe(CARDS.visa, { skipFirstCharge: true, plan: { startDate: "2026-01-20" } });
    expect(res).toMatchObject({ status: "TRIALING", transactionId: null, transactionStatus: null, nextChargeDate: "2026-01-20" });
    expect(s.ctx.db.select().from(transactions).all()).toHaveLength(0);

    const before = await s.http.post("/_sandbox/clock/advance").send({ to: "2026-01-19T23:59:59Z" });
    expect(before.body.ran.charges).toBe(0);
    const at = await s.http.post("/_sandbox/clock/advance").send({ to: "2026-01-20T00:00:00Z" });
    expect(at.body.ran.charges).toBe(1);
    expect(await charges(res.subscriptionId)).toEqual([["2026-01-20", "SUCCEED", "2026-02-20"]]);
    expect(await get(res.subscriptionId)).toMatchObject({
      status: "ACTIVE",
      transactionStatus: "SUCCEED",
      nextChargeDate: "2026-02-20",
    });
  });

  it("a charge due before now waits for the next 5-minute scheduler tick", async () => {
    await advance(s, "PT2M"); // 12:02
    const res = await subscribe(CARDS.visa, { skipFirstCharge: true }); // due 2026-01-15 00:00, already past
    expect((await advance(s, "PT2M")).body.ran.charges).toBe(0); // 12:04
    expect(await get(res.subscriptionId)).toMatchObject({ status: "TRIALING" });
    expect((await advance(s, "PT1M")).body.ran.charges).toBe(1); // 12:05
    expect(await get(res.subscriptionId)).toMatchObject({ status: "ACTIVE", nextChargeDate: "2026-02-15" });
  });

  it("a declined first charge creates no subscription (subscriptionId and nextChargeDate null)", async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({ name: "decline", rules: [{ amount: "13.37", status: "FAILED", declineCode: 5 }] });
    const res = await subscribe(CARDS.visa, { plan: { amount: "13.37" } });
    expect(res).toEqual({
      subscriptionId: null,
      status: null,
      transactionId: "tx_000001",
      transactionStatus: "FAILED",
      declineCode: 5,
      challengeUrl: null,
      challengeUrlIframe: null,
      nextChargeDate: null,
    });
    expect(s.ctx.db.select().from(subscriptions).all()).toHaveLength(0);
    await s.ctx.work.runUntil();
    expect(cardCallbacks().map((b) => [b.transactionStatus, b.declineCode])).toEqual([["FAILED", 5]]);
  });

  it("is idempotent on requestId: the same body → the same answer, no second charge; another body → 409", async () => {
    const token = await tokenFor(s);
    const body = subscriptionBody(token, `${receiver.url}/subs`);
    const a = await gateway(s).post(PATH, body);
    const b = await gateway(s).post(PATH, body);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(s.ctx.db.select().from(subscriptions).all()).toHaveLength(1);
    expect(s.ctx.db.select().from(transactions).all()).toHaveLength(1);
    const c = await gateway(s).post(PATH, { ...body, plan: { ...(body.plan as Json), amount: "10.00" } });
    expect(c.status).toBe(409);
  });

  it("billing details fall back to the token's; the request's win when given", async () => {
    const a = await subscribe(CARDS.visa);
    const own = { ...BILLING, firstName: "Grace" };
    const b = await subscribe(CARDS.visa, { billingDetails: own });
    expect((await get(a.subscriptionId)).billingDetails).toEqual(BILLING);
    expect((await get(b.subscriptionId)).billingDetails).toEqual(own);
  });
});

describe("the 3DS card 4000000000003220 (docs/subscriptions.md recurring column)", () => {
  it("first charge needs 3DS: PENDING with a challenge; success → ACTIVE; later charges succeed without 3DS", async () => {
    const res = await subscribe(CARDS.threeDs);
    expect(res).toEqual({
      subscriptionId: "sub_000001",
      status: "PENDING",
      transactionId: "tx_000001",
      transactionStatus: "CUSTOMER_VERIFICATION",
      declineCode: null,
      challengeUrl: "http://sandbox.test/sandbox/3ds/tx_000001",
      challengeUrlIframe: "http://sandbox.test/sandbox/3ds/tx_000001?mode=iframe",
      nextChargeDate: "2026-02-15",
    });
    expect(await get("sub_000001")).toMatchObject({ status: "PENDING", challengeUrl: res.challengeUrl });
    // not charged by the scheduler while it waits
    expect((await advance(s, "PT10M")).body.ran.charges).toBe(0);

    const answer = await s.http.post("/sandbox/3ds/tx_000001").type("form").send({ outcome: "success" });
    expect(answer.status).toBe(303);
    expect(await get("sub_000001")).toMatchObject({ status: "ACTIVE", transactionStatus: "SUCCEED", challengeUrl: null });
    await s.ctx.work.runUntil();
    expect(cardCallbacks().map((b) => b.transactionStatus)).toEqual(["CUSTOMER_VERIFICATION", "SUCCEED"]);

    await advance(s, "P2M");
    expect(await charges("sub_000001")).toEqual([
      ["2026-02-15", "SUCCEED", "2026-03-15"],
      ["2026-03-15", "SUCCEED", "2026-04-15"],
    ]);
  });

  it("with skipFirstCharge, the first scheduled charge waits for 3DS (challenge in GET), then the callback", async () => {
    const res = await subscribe(CARDS.threeDs, { skipFirstCharge: true, plan: { startDate: "2026-01-16" } });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-01-16T00:05:00Z" });
    const waiting = await get(res.subscriptionId);
    expect(waiting).toMatchObject({ status: "TRIALING", transactionId: "tx_000001", transactionStatus: "CUSTOMER_VERIFICATION" });
    expect(waiting.challengeUrl).toBe("http://sandbox.test/sandbox/3ds/tx_000001");
    expect(await charges(res.subscriptionId)).toEqual([]);
    await s.http.post("/sandbox/3ds/tx_000001").type("form").send({ outcome: "success" });
    expect(await charges(res.subscriptionId)).toEqual([["2026-01-16", "SUCCEED", "2026-02-16"]]);
    await advance(s, "P1M");
    expect((await charges(res.subscriptionId)).map((c) => c[1])).toEqual(["SUCCEED", "SUCCEED"]);
  });

  it("a failed challenge leaves no subscription: GET → `Subscription not found: <id>`", async () => {
    const res = await subscribe(CARDS.threeDs);
    await s.http.post("/sandbox/3ds/tx_000001").type("form").send({ outcome: "failure" });
    const g = await gateway(s).get(`${PATH}/${res.subscriptionId}`);
    expect(g.status).toBe(400);
    expect(g.body).toMatchObject({ errorMessage: "Subscription not found: sub_000001" });
  });

  it("an unanswered challenge times out (FAILED 4) and drops the subscription", async () => {
    const res = await subscribe(CARDS.threeDs);
    await advance(s, "PT31M");
    expect((await gateway(s).get(`${PATH}/${res.subscriptionId}`)).body.errorMessage).toBe("Subscription not found: sub_000001");
  });

  it("canceled while the first charge waits: stays CANCELED whatever the challenge says", async () => {
    const res = await subscribe(CARDS.threeDs);
    expect((await put(res.subscriptionId, { status: "CANCELED" })).status).toBe(200);
    await s.http.post("/sandbox/3ds/tx_000001").type("form").send({ outcome: "success" });
    expect(await get(res.subscriptionId)).toMatchObject({ status: "CANCELED", nextChargeDate: null });
    expect((await advance(s, "P2M")).body.ran.charges).toBe(0);
  });
});

describe("scheduled charges (callbacks, docs/subscriptions.md)", () => {
  it.each([
    ["4111111111111111", CARDS.visa],
    ["5500000000000004", CARDS.mastercard],
  ])("%s: every scheduled charge succeeds, with signed callbacks in order", async (_n, number) => {
    const res = await subscribe(number, { metadata: { plan: "gold" } });
    const adv = await advance(s, "P3M");
    expect(adv.body.ran.charges).toBe(3);
    expect(await charges(res.subscriptionId)).toEqual([
      ["2026-02-15", "SUCCEED", "2026-03-15"],
      ["2026-03-15", "SUCCEED", "2026-04-15"],
      ["2026-04-15", "SUCCEED", "2026-05-15"],
    ]);
    const hooks = receiver.received.filter((h) => (h.body as Json).chargeDate !== undefined);
    expect(hooks).toHaveLength(3);
    const first = hooks[0]!;
    const body = first.body as Json;
    expect(body).toEqual({
      subscriptionId: "sub_000001",
      transactionId: "tx_000002",
      chargeDate: "2026-02-15",
      amount: 9.99,
      currency: "USD",
      transactionStatus: "SUCCEED",
      declineCode: null,
      declineReason: null,
      failureCount: 0,
      nextChargeDate: "2026-03-15",
      metadata: { plan: "gold" },
    });
    expect(first.query.get("paymentMethod")).toBe("card");
    expect(first.query.get("shop")).toBe("1");
    expect(first.headers["x-checksum"]).toBe(hmacBase64(BUILTIN.merchantSecret, "sub_000001|tx_000002|SUCCEED"));
  });

  it("4000000000000002: first charge succeeds, later ones FAILED 5, retried daily, PAUSED after maxRetries (3)", async () => {
    const res = await subscribe(CARDS.declined);
    expect(res).toMatchObject({ status: "ACTIVE", transactionStatus: "SUCCEED" });
    await advance(s, "P2M");
    const bodies = await subscriptionCallbacks(s, res.subscriptionId as string);
    expect(
      bodies.map((b) => [b.chargeDate, b.transactionStatus, b.declineCode, b.declineReason, b.failureCount, b.nextChargeDate]),
    ).toEqual([
      ["2026-02-15", "FAILED", 5, "INSUFFICIENT_FUNDS_ERROR", 1, "2026-02-16"],
      ["2026-02-16", "FAILED", 5, "INSUFFICIENT_FUNDS_ERROR", 2, "2026-02-17"],
      ["2026-02-17", "FAILED", 5, "INSUFFICIENT_FUNDS_ERROR", 3, null],
    ]);
    expect(await get(res.subscriptionId)).toMatchObject({
      status: "PAUSED",
      failureCount: 3,
      nextChargeDate: null,
      declineCode: 5,
    });
  });

  it("SANDBOX_MAX_RETRIES sets how many failures pause", async () => {
    await s.close();
    s = makeSandbox({ config: { maxRetries: 1 } });
    const res = await subscribe(CARDS.declined);
    await advance(s, "P2M");
    expect((await charges(res.subscriptionId)).length).toBe(1);
    expect(await get(res.subscriptionId)).toMatchObject({ status: "PAUSED", failureCount: 1 });
  });

  it("a success after failures resets failureCount and returns to the schedule slot", async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({ name: "flaky", rules: [{ amount: "13.37", status: "FAILED", declineCode: 5 }] });
    const res = await subscribe(CARDS.visa, { plan: { amount: "13.38", startDate: "2026-01-31" } });
    expect(res.nextChargeDate).toBe("2026-02-28");
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-02-27T00:00:00Z" });
    await put(res.subscriptionId, { plan: { amount: "13.37" } });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-03-01T00:00:00Z" }); // fails Feb 28 and Mar 1
    await put(res.subscriptionId, { plan: { amount: "13.38" } });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-04-01T00:00:00Z" });
    const bodies = await subscriptionCallbacks(s, res.subscriptionId as string);
    expect(bodies.map((b) => [b.chargeDate, b.transactionStatus, b.amount, b.failureCount, b.nextChargeDate])).toEqual([
      ["2026-02-28", "FAILED", 13.37, 1, "2026-03-01"],
      ["2026-03-01", "FAILED", 13.37, 2, "2026-03-02"],
      ["2026-03-02", "SUCCEED", 13.38, 0, "2026-03-31"],
      ["2026-03-31", "SUCCEED", 13.38, 0, "2026-04-30"],
    ]);
  });

  it("a one-year jump runs all 12 monthly charges in date order (journal and a real receiver)", async () => {
    const res = await subscribe(CARDS.visa);
    const adv = await advance(s, "P1Y");
    expect(adv.body.ran.charges).toBe(12);
    const expected = [
      "2026-02-15",
      "2026-03-15",
      "2026-04-15",
      "2026-05-15",
      "2026-06-15",
      "2026-07-15",
      "2026-08-15",
      "2026-09-15",
      "2026-10-15",
      "2026-11-15",
      "2026-12-15",
      "2027-01-15",
    ];
    expect((await charges(res.subscriptionId)).map((c) => c[0])).toEqual(expected);
    const received = receiver.received.map((h) => (h.body as Json).chargeDate).filter(Boolean);
    expect(received).toEqual(expected);
    const rows = s.ctx.db.select().from(transactions).all();
    expect(rows.map((r) => new Date(r.createdAt).toISOString().slice(0, 10)).slice(1)).toEqual(expected);
    expect(await get(res.subscriptionId)).toMatchObject({ status: "ACTIVE", nextChargeDate: "2027-02-15" });
  });

  it("endDate: no charge after it, then CANCELED; the last charge's callback shows no next date", async () => {
    const res = await subscribe(CARDS.visa, { plan: { endDate: "2026-03-20" } });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-03-20T12:00:00Z" });
    expect(await get(res.subscriptionId)).toMatchObject({ status: "ACTIVE", nextChargeDate: null });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-03-21T00:00:00Z" });
    expect(await get(res.subscriptionId)).toMatchObject({ status: "CANCELED", nextChargeDate: null });
    await advance(s, "P3M");
    expect(await charges(res.subscriptionId)).toEqual([
      ["2026-02-15", "SUCCEED", "2026-03-15"],
      ["2026-03-15", "SUCCEED", null],
    ]);
  });

  it("a charge on endDate itself still runs", async () => {
    const res = await subscribe(CARDS.visa, { plan: { endDate: "2026-02-15" } });
    await advance(s, "P2M");
    expect(await charges(res.subscriptionId)).toEqual([["2026-02-15", "SUCCEED", null]]);
    expect(await get(res.subscriptionId)).toMatchObject({ status: "CANCELED" });
  });

  it("a scheduled charge left PROCESSING sends its callback when it settles, and the schedule moves on then", async () => {
    await s.http.post("/_sandbox/scenarios").send({
      name: "slow",
      rules: [{ amount: "42.00", status: "PROCESSING", completeAfter: "PT1H", completeWith: "SUCCEED" }],
    });
    const res = await subscribe(CARDS.visa, { skipFirstCharge: true, plan: { amount: "42.00", startDate: "2026-01-16" } });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-01-16T00:30:00Z" });
    expect(await get(res.subscriptionId)).toMatchObject({ status: "TRIALING", transactionStatus: "PROCESSING" });
    expect(await charges(res.subscriptionId)).toEqual([]);
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-01-16T01:00:00Z" });
    expect(await charges(res.subscriptionId)).toEqual([["2026-01-16", "SUCCEED", "2026-02-16"]]);
    expect(await get(res.subscriptionId)).toMatchObject({ status: "ACTIVE", nextChargeDate: "2026-02-16" });
  });
});

describe("PUT (docs/subscriptions.md) and DELETE (docs/subscriptions.md)", () => {
  const ALLOWED: Array<[string, string, string]> = [
    ["ACTIVE", "PAUSED", "PAUSED"],
    ["ACTIVE", "CANCELED", "CANCELED"],
    ["ACTIVE", "CANCELLED", "CANCELED"],
    ["ACTIVE", "ACTIVE", "ACTIVE"],
    ["TRIALING", "PAUSED", "PAUSED"],
    ["TRIALING", "CANCELED", "CANCELED"],
    ["PENDING", "CANCELED", "CANCELED"],
  ];
  const REFUSED: Array<[string, string]> = [
    ["ACTIVE", "PENDING"],
    ["ACTIVE", "TRIALING"],
    ["TRIALING", "ACTIVE"],
    ["PENDING", "ACTIVE"],
    ["PENDING", "PAUSED"],
    ["PAUSED", "TRIALING"],
    ["CANCELED", "ACTIVE"],
    ["CANCELED", "PAUSED"],
  ];

  /** A subscription in `status`, reached the API way. */
  async function inStatus(status: string) {
    if (status === "PENDING") return subscribe(CARDS.threeDs);
    if (status === "TRIALING") return subscribe(CARDS.visa, { skipFirstCharge: true, plan: { startDate: "2026-02-01" } });
    const res = await subscribe(CARDS.visa);
    if (status !== "ACTIVE") expect((await put(res.subscriptionId, { status })).status).toBe(200);
    return res;
  }

  it.each(ALLOWED)("%s → %s is allowed", async (from, to, expected) => {
    const res = await inStatus(from);
    const r = await put(res.subscriptionId, { status: to });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe(expected);
    expect((await get(res.subscriptionId)).status).toBe(expected);
  });

  it.each(REFUSED)("%s → %s is refused with 400 `Invalid field: status`, nothing changes", async (from, to) => {
    const res = await inStatus(from);
    const before = await get(res.subscriptionId);
    const r = await put(res.subscriptionId, { status: to, plan: { amount: "1.00" } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errorMessage: "Invalid field: status" });
    expect(await get(res.subscriptionId)).toEqual(before);
  });

  it("PAUSED → ACTIVE resets failureCount and charges next on the first slot on or after today", async () => {
    const res = await subscribe(CARDS.declined, { plan: { startDate: "2026-01-31" } });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-03-10T00:00:00Z" });
    expect(await get(res.subscriptionId)).toMatchObject({ status: "PAUSED", failureCount: 3 });
    const resumed = await put(res.subscriptionId, { status: "ACTIVE" });
    expect(resumed.body).toMatchObject({ status: "ACTIVE", failureCount: 0, nextChargeDate: "2026-03-31" });
  });

  it("paused subscriptions are not charged; resuming on a slot day charges at the next tick", async () => {
    const res = await subscribe(CARDS.visa);
    await put(res.subscriptionId, { status: "PAUSED" });
    expect(await get(res.subscriptionId)).toMatchObject({ status: "PAUSED", nextChargeDate: null });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-03-15T06:00:00Z" });
    expect(await charges(res.subscriptionId)).toEqual([]);
    expect((await put(res.subscriptionId, { status: "ACTIVE" })).body.nextChargeDate).toBe("2026-03-15");
    await advance(s, "PT5M");
    expect(await charges(res.subscriptionId)).toEqual([["2026-03-15", "SUCCEED", "2026-04-15"]]);
  });

  it("an amount change applies from the next charge", async () => {
    const res = await subscribe(CARDS.visa);
    const r = await put(res.subscriptionId, { plan: { amount: "19.90" } });
    expect(r.body).toMatchObject({ plan: { amount: "19.90" }, nextChargeDate: "2026-02-15" });
    await advance(s, "P1M");
    expect((await subscriptionCallbacks(s, res.subscriptionId as string)).map((b) => b.amount)).toEqual([19.9]);
  });

  it("a new frequency starts at the next charge: MONTHLY → WEEKLY×2 keeps Feb 15, then every 14 days", async () => {
    const res = await subscribe(CARDS.visa);
    const r = await put(res.subscriptionId, { plan: { frequency: "WEEKLY", interval: 2 } });
    expect(r.body).toMatchObject({
      plan: { frequency: "WEEKLY", interval: 2, startDate: "2026-01-15" },
      nextChargeDate: "2026-02-15",
    });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-03-16T00:00:00Z" });
    expect((await charges(res.subscriptionId)).map((c) => c[0])).toEqual(["2026-02-15", "2026-03-01", "2026-03-15"]);
  });

  it("a new startDate moves the next charge there and re-anchors the schedule", async () => {
    const res = await subscribe(CARDS.visa);
    const r = await put(res.subscriptionId, { plan: { startDate: "2026-01-31" } });
    expect(r.body).toMatchObject({ nextChargeDate: "2026-01-31", plan: { startDate: "2026-01-31" } });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-04-01T00:00:00Z" });
    expect((await charges(res.subscriptionId)).map((c) => c[0])).toEqual(["2026-01-31", "2026-02-28", "2026-03-31"]);
  });

  it("a currency change re-reads the amount at the new precision; endDate can be set and removed", async () => {
    const res = await subscribe(CARDS.visa, { plan: { amount: "10" } });
    const jpy = await put(res.subscriptionId, { plan: { currency: "JPY" } });
    expect(jpy.body.plan).toMatchObject({ amount: "10", currency: "JPY" });
    const bad = await put(res.subscriptionId, { plan: { currency: "USD", amount: "9.999" } });
    expect(bad.body).toMatchObject({ errorMessage: "Invalid field: plan.amount" });
    expect((await put(res.subscriptionId, { plan: { endDate: "2026-12-31" } })).body.plan.endDate).toBe("2026-12-31");
    expect((await put(res.subscriptionId, { plan: { endDate: null } })).body.plan.endDate).toBeNull();
  });

  it("DELETE → 204, CANCELED, no further charge; again → 204", async () => {
    const res = await subscribe(CARDS.visa);
    const d = await gateway(s).delete(`${PATH}/${res.subscriptionId}`);
    expect(d.status).toBe(204);
    expect(d.text).toBe("");
    expect(await get(res.subscriptionId)).toMatchObject({ status: "CANCELED", nextChargeDate: null });
    expect((await advance(s, "P3M")).body.ran.charges).toBe(0);
    expect((await gateway(s).delete(`${PATH}/${res.subscriptionId}`)).status).toBe(204);
  });

  it("a paused subscription past its endDate is canceled", async () => {
    const res = await subscribe(CARDS.visa, { plan: { endDate: "2026-02-10" } });
    await put(res.subscriptionId, { status: "PAUSED" });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-02-11T00:00:00Z" });
    expect(await get(res.subscriptionId)).toMatchObject({ status: "CANCELED" });
  });
});
