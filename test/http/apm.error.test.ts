import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transactions } from "../../src/db/schema/index.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { apmBody, type Body, hmac, payoutBody, sign } from "./apm.support.js";

let s: TestSandbox;
let token: string;
beforeAll(async () => {
  s = makeSandbox();
  token = await s.token();
});
afterAll(async () => {
  await s.close();
});

const SECRET = "sandbox_merchant_secret";
const rows = () => s.ctx.db.select().from(transactions).all().length;
async function refused(
  body: Body,
  message: string,
  path = "/api/v1/payments/apm",
  referer: string | null = "https://shop.example",
) {
  const before = rows();
  let req = s.http.post(path).set("authorization", token);
  if (referer !== null) req = req.set("referer", referer);
  const res = await req.send(body);
  expect(res.status).toBe(400);
  expect(res.body.errorMessage).toBe(message);
  expect(rows()).toBe(before);
}

describe("APM request checksum (docs/apm.md)", () => {
  it("missing → Missing required field: checksum", async () => {
    const { checksum: _, ...body } = apmBody("SMART_E_WALLET");
    await refused(body, "Missing required field: checksum");
  });

  it("wrong secret, another field order, or a tampered amount → Invalid field: checksum", async () => {
    const body = apmBody("SMART_E_WALLET");
    await refused({ ...body, checksum: hmac("other_secret", `2001|20.50|USD|${body.requestId}`) }, "Invalid field: checksum");
    await refused({ ...body, checksum: hmac(SECRET, `${body.requestId}|USD|20.50|2001`) }, "Invalid field: checksum");
    await refused({ ...body, amount: "20.51" }, "Invalid field: checksum");
    await refused({ ...body, checksum: "" }, "Invalid field: checksum");
  });

  it('"20.50" is signed as sent: the checksum of "20.5" does not match, and the reverse', async () => {
    const body = apmBody("SMART_E_WALLET", { amount: "20.50" });
    await refused({ ...body, checksum: hmac(SECRET, `2001|20.5|USD|${body.requestId}`) }, "Invalid field: checksum");
    const short = apmBody("SMART_E_WALLET", { amount: "20.5" });
    expect((await s.http.post("/api/v1/payments/apm").set("authorization", token).send(short)).status).toBe(200);
    await refused(
      { ...short, requestId: `${short.requestId}-b`, checksum: hmac(SECRET, `2001|20.50|USD|${short.requestId}-b`) },
      "Invalid field: checksum",
    );
  });

  it("a numeric accountId is signed as written", async () => {
    const body = sign({ ...apmBody("SMART_E_WALLET"), accountId: 2001 });
    expect((await s.http.post("/api/v1/payments/apm").set("authorization", token).send(body)).status).toBe(200);
  });
});

describe("APM pay-in validation (docs/apm.md)", () => {
  it.each([
    ["another merchant's accountId", { accountId: "9999" }, "Invalid field: accountId"],
    [
      "a method the catalog lacks",
      { apmPayload: { paymentMethod: "NOPE", paymentType: "E_WALLET" } },
      "Invalid field: apmPayload.paymentMethod",
    ],
    [
      "a payout-only method",
      { apmPayload: { paymentMethod: "SMART_BANK_TRANSFER_PAYOUT", paymentType: "BANK_TRANSFER" } },
      "Invalid field: apmPayload.paymentMethod",
    ],
    [
      "the wrong paymentType",
      { apmPayload: { paymentMethod: "SMART_E_WALLET", paymentType: "BANK_TRANSFER" } },
      "Invalid field: apmPayload.paymentType",
    ],
    [
      "a paymentType outside the enum",
      { apmPayload: { paymentMethod: "SMART_E_WALLET", paymentType: "CHEQUE" } },
      "Invalid field: apmPayload.paymentType",
    ],
    ["no paymentMethod", { apmPayload: { paymentType: "E_WALLET" } }, "Missing required field: apmPayload.paymentMethod"],
    ["UPI_QR in USD", { apmPayload: { paymentMethod: "UPI_QR", paymentType: "BANK_TRANSFER" } }, "Invalid field: currency"],
    ["an amount with too many digits", { amount: "1.234" }, "Invalid field: amount"],
    ["an unknown currency", { currency: "XXY" }, "Invalid field: currency"],
    [
      "a bad bankAccountType",
      { apmPayload: { paymentMethod: "SMART_E_WALLET", paymentType: "E_WALLET", walletId: "w", bankAccountType: "GOLD" } },
      "Invalid field: apmPayload.bankAccountType",
    ],
    ["no billingDetails (not a wallet)", { billingDetails: undefined }, "Missing required field: billingDetails"],
    ["no callbackUrl (not a wallet)", { callbackUrl: undefined }, "Missing required field: callbackUrl"],
    ["a bad device ip", { device: { ip: "nope" } }, "Invalid field: device.ip"],
    [
      "a billing phone missing",
      { billingDetails: { ...(apmBody("SMART_E_WALLET").billingDetails as Body), phone: undefined } },
      "Missing required field: billingDetails.phone",
    ],
  ])("%s → 400, nothing written", async (_name, over, message) => {
    await refused(sign({ ...apmBody("SMART_E_WALLET"), ...over }), message);
  });

  it("a decrypted PAN that fails Luhn → 400 naming it", async () => {
    const body = apmBody("APPLE_PAY", {}, { decrypted: { applicationPrimaryAccountNumber: "4111111111111112" } });
    await refused(body, "Invalid field: apmPayload.decrypted.applicationPrimaryAccountNumber");
  });
});

describe("the method is judged before its fields (docs/apm.md)", () => {
  const PAYOUT = { paymentMethod: "SMART_BANK_TRANSFER_PAYOUT", paymentType: "BANK_TRANSFER" };
  const wallet = (body: Body) => {
    const {
      order: _o,
      billingDetails: _b,
      device: _d,
      callbackUrl: _c,
      successRedirectUrl: _s,
      failureRedirectUrl: _f,
      ...rest
    } = body;
    return rest;
  };
  it.each([
    [
      "a payout-only method with a payout's body (no order, billing, device, URLs)",
      wallet(apmBody("SMART_E_WALLET", {}, { ...PAYOUT, accountNumber: "000123456789", bankAccountType: "SAVINGS" })),
      "Invalid field: apmPayload.paymentMethod",
    ],
    [
      "a payout-only method with a field the pay-in methods would refuse",
      apmBody("SMART_E_WALLET", {}, { ...PAYOUT, accountNumber: "000-123" }),
      "Invalid field: apmPayload.paymentMethod",
    ],
    [
      "the wrong paymentType with a bad field",
      apmBody("SMART_E_WALLET", {}, { paymentMethod: "SMART_E_WALLET", paymentType: "BANK_TRANSFER", accountNumber: "x" }),
      "Invalid field: apmPayload.paymentType",
    ],
    [
      "a wallet method with another paymentType and only the wallet fields",
      wallet(apmBody("APPLE_PAY", {}, { paymentMethod: "APPLE_PAY", paymentType: "E_WALLET" })),
      "Invalid field: apmPayload.paymentType",
    ],
    [
      "UPI_QR in USD with a bad field and no billing details",
      apmBody("UPI_QR", { currency: "USD", billingDetails: undefined }, { accountNumber: "x" }),
      "Invalid field: currency",
    ],
  ])("pay-in, %s → 400 naming the method's field, nothing written", async (_name, body, message) => {
    await refused(sign(body), message);
  });

  it("a pay-in-only method sent as a payout, with a bad field → Invalid field: apmPayload.paymentMethod", async () => {
    const body = payoutBody("SMART_E_WALLET", {}, { paymentMethod: "UPI_QR", paymentType: "BANK_TRANSFER", accountNumber: "12" });
    await refused(body, "Invalid field: apmPayload.paymentMethod", "/api/v1/payouts/apm");
  });

  it("the reason says which methods the route takes", async () => {
    const res = await s.http
      .post("/api/v1/payments/apm")
      .set("authorization", token)
      .send(apmBody("SMART_E_WALLET", {}, { ...PAYOUT, accountNumber: "000-123" }));
    expect(res.body.errors[0]).toEqual({
      field: "apmPayload.paymentMethod",
      message: expect.stringMatching(/^SMART_BANK_TRANSFER_PAYOUT is a payout method; pay-ins take SMART_E_WALLET, /),
    });
  });
});

describe("APM payout validation (docs/apm.md#payouts)", () => {
  it("no Referer → Missing required field: Referer", async () => {
    await refused(payoutBody(), "Missing required field: Referer", "/api/v1/payouts/apm", null);
  });
  it.each([
    [
      "a pay-in-only method",
      { apmPayload: { paymentMethod: "UPI_QR", paymentType: "BANK_TRANSFER" } },
      "Invalid field: apmPayload.paymentMethod",
    ],
    ["another merchant's accountId", { accountId: "1" }, "Invalid field: accountId"],
    ["no amount", { amount: undefined }, "Missing required field: amount"],
  ])("%s → 400", async (_name, over, message) => {
    await refused({ ...payoutBody(), ...over }, message, "/api/v1/payouts/apm");
  });
});
