import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { transactions } from "../../src/db/schema/index.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { type Body, CARDS, cardPaymentBody, threeDsBody } from "./payments.body.js";

let s: TestSandbox;
let token: string;

beforeEach(async () => {
  s = makeSandbox();
  token = await s.token();
});

afterEach(async () => {
  await s.close();
});

const pay = (body: unknown) =>
  s.http
    .post("/api/v1/payments/card")
    .set("authorization", token)
    .send(body as object);
const rowCount = () => s.ctx.db.select().from(transactions).all().length;

type Mutation = (b: Body) => void;
const drop =
  (...path: string[]): Mutation =>
  (b) => {
    const parent = path.slice(0, -1).reduce<Record<string, unknown>>((o, k) => o[k] as Record<string, unknown>, b);
    delete parent[path.at(-1)!];
  };
const set =
  (value: unknown, ...path: string[]): Mutation =>
  (b) => {
    const parent = path.slice(0, -1).reduce<Record<string, unknown>>((o, k) => o[k] as Record<string, unknown>, b);
    parent[path.at(-1)!] = value;
  };

const MISSING = "Missing required field";
const INVALID = "Invalid field";

// [what, mutation, expected errorMessage]; every case is 400 and writes nothing
const CASES: Array<[string, Mutation, string, "3ds"?]> = [
  ["no requestId", drop("requestId"), `${MISSING}: requestId`],
  ["empty requestId", set("", "requestId"), `${INVALID}: requestId`],
  ["no mid", drop("mid"), `${MISSING}: mid`],
  ["another merchant's mid", set("qa-mid", "mid"), `${INVALID}: mid`],
  ["no card", drop("card"), `${MISSING}: card`],
  ["card not an object", set("4111111111111111", "card"), `${INVALID}: card`],
  ["no card.number", drop("card", "number"), `${MISSING}: card.number`],
  ["card.number fails Luhn", set("4111111111111112", "card", "number"), `${INVALID}: card.number`],
  ["card.number with letters", set("4111-1111-1111-1111", "card", "number"), `${INVALID}: card.number`],
  ["card.number too short", set("42", "card", "number"), `${INVALID}: card.number`],
  ["card.number as a number", set(4111111111111111, "card", "number"), `${INVALID}: card.number`],
  ["card.expMonth 13", set("13", "card", "expMonth"), `${INVALID}: card.expMonth`],
  ["card.expMonth 00", set("00", "card", "expMonth"), `${INVALID}: card.expMonth`],
  ["card.expMonth one digit", set("1", "card", "expMonth"), `${INVALID}: card.expMonth`],
  ["no card.expMonth", drop("card", "expMonth"), `${MISSING}: card.expMonth`],
  ["card.expYear two digits", set("30", "card", "expYear"), `${INVALID}: card.expYear`],
  ["card expired last year", set("2025", "card", "expYear"), `${INVALID}: card.expYear`],
  [
    "card expired last month",
    (b) => {
      b.card.expYear = "2025";
      b.card.expMonth = "12";
    },
    `${INVALID}: card.expYear`,
  ],
  ["no card.cvv", drop("card", "cvv"), `${MISSING}: card.cvv`],
  ["card.cvv two digits", set("73", "card", "cvv"), `${INVALID}: card.cvv`],
  ["card.cvv five digits", set("73737", "card", "cvv"), `${INVALID}: card.cvv`],
  ["no card.requestThreeDSecure", drop("card", "requestThreeDSecure"), `${MISSING}: card.requestThreeDSecure`],
  ["card.requestThreeDSecure a string", set("true", "card", "requestThreeDSecure"), `${INVALID}: card.requestThreeDSecure`],
  ["no amount", drop("amount"), `${MISSING}: amount`],
  ["amount zero", set("0", "amount"), `${INVALID}: amount`],
  ["amount 0.00", set("0.00", "amount"), `${INVALID}: amount`],
  ["amount negative", set("-5", "amount"), `${INVALID}: amount`],
  ["amount as a number", set(20.5, "amount"), `${INVALID}: amount`],
  ["amount with 3 decimals in USD", set("20.505", "amount"), `${INVALID}: amount`],
  ["amount with an exponent", set("1e3", "amount"), `${INVALID}: amount`],
  [
    "amount with decimals in JPY",
    (b) => {
      b.currency = "JPY";
      b.amount = "100.5";
    },
    `${INVALID}: amount`,
  ],
  ["amount beyond 2^53 minor units", set("99999999999999999999", "amount"), `${INVALID}: amount`],
  ["no currency", drop("currency"), `${MISSING}: currency`],
  ["unknown currency", set("XYZ", "currency"), `${INVALID}: currency`],
  ["lower-case currency", set("usd", "currency"), `${INVALID}: currency`],
  ["no lang", drop("lang"), `${MISSING}: lang`],
  ["lang not a language tag", set("english please", "lang"), `${INVALID}: lang`],
  ["callbackUrl not a URL", set("not a url", "callbackUrl"), `${INVALID}: callbackUrl`],
  ["callbackUrl not http(s)", set("ftp://shop.example/cb", "callbackUrl"), `${INVALID}: callbackUrl`],
  ["successRedirectUrl javascript:", set("javascript:alert(1)", "successRedirectUrl"), `${INVALID}: successRedirectUrl`],
  ["no billingDetails", drop("billingDetails"), `${MISSING}: billingDetails`],
  ["no billingDetails.firstName", drop("billingDetails", "firstName"), `${MISSING}: billingDetails.firstName`],
  ["empty billingDetails.lastName", set("", "billingDetails", "lastName"), `${INVALID}: billingDetails.lastName`],
  ["no billingDetails.address1", drop("billingDetails", "address1"), `${MISSING}: billingDetails.address1`],
  ["no billingDetails.postalCode", drop("billingDetails", "postalCode"), `${MISSING}: billingDetails.postalCode`],
  ["no billingDetails.email", drop("billingDetails", "email"), `${MISSING}: billingDetails.email`],
  ["bad billingDetails.email", set("ada-at-example.com", "billingDetails", "email"), `${INVALID}: billingDetails.email`],
  ["billingDetails.country alpha-3", set("GBR", "billingDetails", "country"), `${INVALID}: billingDetails.country`],
  ["billingDetails.country unknown", set("XX", "billingDetails", "country"), `${INVALID}: billingDetails.country`],
  ["billingDetails.country lower-case", set("gb", "billingDetails", "country"), `${INVALID}: billingDetails.country`],
  ["no billingDetails.dateOfBirth", drop("billingDetails", "dateOfBirth"), `${MISSING}: billingDetails.dateOfBirth`],
  [
    "billingDetails.dateOfBirth not a date",
    set("1990-02-30", "billingDetails", "dateOfBirth"),
    `${INVALID}: billingDetails.dateOfBirth`,
  ],
  ["no order", drop("order"), `${MISSING}: order`],
  ["order.orderId a number", set(5, "order", "orderId"), `${INVALID}: order.orderId`],
  ["no device", drop("device"), `${MISSING}: device`],
  ["no device.ip", drop("device", "ip"), `${MISSING}: device.ip`],
  ["bad device.ip", set("300.1.2.3", "device", "ip"), `${INVALID}: device.ip`],
  ["no device.userAgent", drop("device", "userAgent"), `${MISSING}: device.userAgent`],
  ["metadata value a number", set({ cart: 7 }, "metadata"), `${INVALID}: metadata.cart`],
  ["previousPaymentCount negative", set(-1, "previousPaymentCount"), `${INVALID}: previousPaymentCount`],
  ["kycVerified a string", set("yes", "kycVerified"), `${INVALID}: kycVerified`],
  ["3DS without callbackUrl", drop("callbackUrl"), `${MISSING}: callbackUrl`, "3ds"],
  ["3DS without successRedirectUrl", drop("successRedirectUrl"), `${MISSING}: successRedirectUrl`, "3ds"],
  ["3DS without failureRedirectUrl", drop("failureRedirectUrl"), `${MISSING}: failureRedirectUrl`, "3ds"],
  ["3DS without device.accept", drop("device", "accept"), `${MISSING}: device.accept`, "3ds"],
  ["3DS without device.colorDepth", drop("device", "colorDepth"), `${MISSING}: device.colorDepth`, "3ds"],
  ["3DS without device.screenWidth", drop("device", "screenWidth"), `${MISSING}: device.screenWidth`, "3ds"],
  ["3DS without device.deviceTimezone", drop("device", "deviceTimezone"), `${MISSING}: device.deviceTimezone`, "3ds"],
  ["3DS without device.javaEnabled", drop("device", "javaEnabled"), `${MISSING}: device.javaEnabled`, "3ds"],
  [
    "3DS with device.javaScriptEnabled a string",
    set("yes", "device", "javaScriptEnabled"),
    `${INVALID}: device.javaScriptEnabled`,
    "3ds",
  ],
];

describe("POST /payments/card validation (docs/cards.md, docs/gateway.md#requests-and-answers)", () => {
  const table = CASES.map(([what, mutate, message, mode]) => ({ what, mutate, message, mode }));
  it.each(table)("$what → 400 $message", async ({ mutate, message, mode }) => {
    const body = mode === "3ds" ? threeDsBody("http://127.0.0.1:9/cb") : cardPaymentBody();
    mutate(body);
    const res = await pay(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorMessage: message });
    expect(rowCount()).toBe(0);
  });

  it("the same bodies are valid without the mutation (the table tests what it says)", async () => {
    expect((await pay(cardPaymentBody())).status).toBe(200);
    expect((await pay(threeDsBody("http://127.0.0.1:9/cb"))).status).toBe(200);
  });

  it("without requestThreeDSecure the 3DS fields stay optional; colorDepth may be a number", async () => {
    const res = await pay(cardPaymentBody({ device: { colorDepth: 24 } }));
    expect(res.status).toBe(200);
  });

  it.each([
    ["malformed JSON", "{not json", "application/json"],
    ["an array", "[]", "application/json"],
    ["null", "null", "application/json"],
    ["no body", "", "application/json"],
  ])("%s → 400", async (_what, raw, type) => {
    const res = await s.http.post("/api/v1/payments/card").set("authorization", token).set("content-type", type).send(raw);
    expect(res.status).toBe(400);
    expect(typeof res.body.errorMessage).toBe("string");
    expect(rowCount()).toBe(0);
  });

  it("needs a bearer token", async () => {
    const res = await s.http.post("/api/v1/payments/card").send(cardPaymentBody());
    expect(res.status).toBe(401);
    expect(rowCount()).toBe(0);
  });

  it("a failed validation leaves the requestId free", async () => {
    const body = cardPaymentBody({ amount: "0" });
    expect((await pay(body)).status).toBe(400);
    expect((await pay({ ...body, amount: "1.00" })).status).toBe(200);
  });
});

describe("status, info and complete errors", () => {
  it("unknown ids are 404 on status and info", async () => {
    for (const path of ["status", "info"]) {
      const res = await s.http.get(`/api/v1/payments/card/${path}/tx_unknown`).set("authorization", token);
      expect(res.status).toBe(404);
      expect(res.body.errorMessage).toContain("tx_unknown");
    }
  });

  it("complete: unknown id 404; a final or 3DS-waiting transaction 409; a bad status 400", async () => {
    const complete = (id: string, body: unknown) => s.http.post(`/_sandbox/transactions/${id}/complete`).send(body as object);
    expect((await complete("tx_unknown", { status: "SUCCEED" })).status).toBe(404);
    const done = (await pay(cardPaymentBody())).body.transactionId;
    const waiting = (await pay(cardPaymentBody({ card: { number: CARDS.threeDs } }))).body.transactionId;
    expect((await complete(done, { status: "FAILED" })).status).toBe(409);
    expect((await complete(waiting, { status: "SUCCEED" })).status).toBe(409);
    expect((await complete(waiting, { status: "DONE" })).body).toMatchObject({ errorMessage: `${INVALID}: status` });
    expect((await complete(waiting, {})).body).toMatchObject({ errorMessage: `${MISSING}: status` });
    expect((await complete(waiting, { status: "FAILED", declineCode: 999 })).body).toEqual({
      errorMessage: `${INVALID}: declineCode`,
      errors: [{ field: "declineCode", message: expect.stringMatching(/decline code/) }],
    });
    const status = await s.http.get(`/api/v1/payments/card/status/${waiting}`).set("authorization", token);
    expect(status.body.transactionStatus).toBe("CUSTOMER_VERIFICATION");
  });
});
