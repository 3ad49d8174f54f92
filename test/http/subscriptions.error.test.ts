import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { subscriptions, transactions } from "../../src/db/schema/index.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { BILLING, DEVICE, gateway, seedTokenWithoutBilling, subscriptionBody, tokenFor } from "./subscriptions.support.js";

let s: TestSandbox;
beforeEach(() => {
  s = makeSandbox(); // today = 2026-01-15
});
afterEach(async () => {
  await s.close();
});

const CB = "http://127.0.0.1:9/cb";
const PATH = "/payments/card/recurring";
type Json = Record<string, unknown>;
const clean = (o: Json) => JSON.parse(JSON.stringify(o)) as Json;
const nothingStored = () => {
  expect(s.ctx.db.select().from(subscriptions).all()).toHaveLength(0);
  expect(s.ctx.db.select().from(transactions).all()).toHaveLength(0);
};

describe("create: errors and plan validation", () => {
  it.each<[string, Json & { plan?: Json }, string]>([
    ["no callbackUrl", { callbackUrl: undefined }, "Missing required field: callbackUrl"],
    ["no successRedirectUrl", { successRedirectUrl: undefined }, "Missing required field: successRedirectUrl"],
    ["no failureRedirectUrl", { failureRedirectUrl: undefined }, "Missing required field: failureRedirectUrl"],
    ["no plan", { plan: undefined }, "Missing required field: plan"],
    ["no cardToken", { cardToken: undefined }, "Missing required field: cardToken"],
    ["no order", { order: undefined }, "Missing required field: order"],
    ["no device", { device: undefined }, "Missing required field: device"],
    ["no device.ip", { device: { ...DEVICE, ip: undefined } }, "Missing required field: device.ip"],
    ["no requestId", { requestId: undefined }, "Missing required field: requestId"],
    ["a callbackUrl that is no URL", { callbackUrl: "not a url" }, "Invalid field: callbackUrl"],
    ["another merchant's mid", { mid: "other-mid" }, "Invalid field: mid"],
    ["skipFirstCharge not a boolean", { skipFirstCharge: "yes" }, "Invalid field: skipFirstCharge"],
    ["no plan.amount", { plan: { amount: undefined } }, "Missing required field: plan.amount"],
    ["no plan.frequency", { plan: { frequency: undefined } }, "Missing required field: plan.frequency"],
    ["no plan.interval", { plan: { interval: undefined } }, "Missing required field: plan.interval"],
    ["no plan.startDate", { plan: { startDate: undefined } }, "Missing required field: plan.startDate"],
    ["plan.amount finer than USD", { plan: { amount: "9.999" } }, "Invalid field: plan.amount"],
    ["plan.amount with decimals in JPY", { plan: { amount: "500.5", currency: "JPY" } }, "Invalid field: plan.amount"],
    ["plan.amount zero", { plan: { amount: "0.00" } }, "Invalid field: plan.amount"],
    ["plan.amount negative", { plan: { amount: "-1" } }, "Invalid field: plan.amount"],
    ["plan.amount a number", { plan: { amount: 9.99 } }, "Invalid field: plan.amount"],
    ["an unknown plan.currency", { plan: { currency: "ABC" } }, "Invalid field: plan.currency"],
    ["plan.frequency YEARLY", { plan: { frequency: "YEARLY" } }, "Invalid field: plan.frequency"],
    ["plan.interval 0", { plan: { interval: 0 } }, "Invalid field: plan.interval"],
    ["plan.interval 1.5", { plan: { interval: 1.5 } }, "Invalid field: plan.interval"],
    ["plan.interval as a string", { plan: { interval: "1" } }, "Invalid field: plan.interval"],
    ["plan.interval too large", { plan: { interval: 1001 } }, "Invalid field: plan.interval"],
    ["plan.startDate yesterday", { plan: { startDate: "2026-01-14" } }, "Invalid field: plan.startDate"],
    ["plan.startDate not a date", { plan: { startDate: "2026-02-30" } }, "Invalid field: plan.startDate"],
    ["plan.startDate with a time", { plan: { startDate: "2026-02-01T00:00:00Z" } }, "Invalid field: plan.startDate"],
    ["plan.startDate in year 9000", { plan: { startDate: "9000-01-01" } }, "Invalid field: plan.startDate"],
    [
      "plan.endDate before startDate",
      { plan: { startDate: "2026-03-01", endDate: "2026-02-28" } },
      "Invalid field: plan.endDate",
    ],
    ["plan.endDate not a date", { plan: { endDate: "soon" } }, "Invalid field: plan.endDate"],
    ["a bad billingDetails.email", { billingDetails: { ...BILLING, email: "nope" } }, "Invalid field: billingDetails.email"],
  ])("%s → 400 %s, nothing stored", async (_name, over, message) => {
    const token = await tokenFor(s);
    const body = subscriptionBody(token, CB, over);
    if ("plan" in over && over.plan === undefined) delete body.plan;
    const res = await gateway(s).post(PATH, clean(body));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorMessage: message });
    expect(s.ctx.db.select().from(subscriptions).all()).toHaveLength(0);
  });

  it("an unknown token → 400 `Token not found or expired: <masked token>`", async () => {
    const res = await gateway(s).post(PATH, subscriptionBody("tok_unknownUnknown9876", CB));
    expect(res.body).toMatchObject({ errorMessage: "Token not found or expired: tok_****9876" });
    nothingStored();
  });

  it("an expired token → the same 400", async () => {
    const token = await tokenFor(s, undefined, { expirationDate: "2026-01-20" });
    await s.http.post("/_sandbox/clock/advance").send({ to: "2026-01-21T00:00:00Z" });
    const res = await gateway(s).post(PATH, subscriptionBody(token, CB, { plan: { startDate: "2026-01-21" } }));
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/^Token not found or expired: tok_\*\*\*\*/);
    nothingStored();
  });

  it("billing details missing from both request and token → 400", async () => {
    seedTokenWithoutBilling(s);
    const res = await gateway(s).post(PATH, subscriptionBody("tok_noBillingAtAll0000", CB));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorMessage: "Billing details missing from both request and token" });
    nothingStored();
  });
});

describe("retrieve, update, cancel: errors", () => {
  it.each([
    ["GET", () => gateway(s).get(`${PATH}/sub_nope`)],
    ["PUT", () => gateway(s).put(`${PATH}/sub_nope`, { status: "PAUSED" })],
    ["DELETE", () => gateway(s).delete(`${PATH}/sub_nope`)],
  ])("%s of an unknown id → 400 `Subscription not found: <id>`", async (_m, call) => {
    const res = await call();
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorMessage: "Subscription not found: sub_nope" });
  });

  it.each<[string, Json, string]>([
    ["an unknown status", { status: "STOPPED" }, "Invalid field: status"],
    ["a plan.amount finer than the currency", { plan: { amount: "1.001" } }, "Invalid field: plan.amount"],
    ["an unknown plan.currency", { plan: { currency: "ABC" } }, "Invalid field: plan.currency"],
    ["a currency the amount does not fit", { plan: { currency: "JPY" } }, "Invalid field: plan.amount"],
    ["plan.frequency YEARLY", { plan: { frequency: "YEARLY" } }, "Invalid field: plan.frequency"],
    ["plan.interval 0", { plan: { interval: 0 } }, "Invalid field: plan.interval"],
    ["plan.startDate in the past", { plan: { startDate: "2026-01-01" } }, "Invalid field: plan.startDate"],
    ["plan.endDate before startDate", { plan: { endDate: "2026-01-14" } }, "Invalid field: plan.endDate"],
    ["plan.endDate not a date", { plan: { endDate: "2026-02-31" } }, "Invalid field: plan.endDate"],
  ])("PUT with %s → 400 %s, nothing changes", async (_name, body, message) => {
    const token = await tokenFor(s);
    const created = await gateway(s).post(PATH, subscriptionBody(token, CB));
    const id = created.body.subscriptionId as string;
    const before = (await gateway(s).get(`${PATH}/${id}`)).body;
    const res = await gateway(s).put(`${PATH}/${id}`, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorMessage: message });
    expect((await gateway(s).get(`${PATH}/${id}`)).body).toEqual(before);
  });

  it("no bearer token → 401 on every subscription route", async () => {
    for (const res of [
      await s.http.post(`/api/v1${PATH}`).send({}),
      await s.http.get(`/api/v1${PATH}/sub_x`),
      await s.http.put(`/api/v1${PATH}/sub_x`).send({}),
      await s.http.delete(`/api/v1${PATH}/sub_x`),
    ]) {
      expect(res.status).toBe(401);
    }
  });
});
