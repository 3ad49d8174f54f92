/**
 * Every method × direction × missing-field combination of docs/apm.md's APM table: the method's
 * fields all present → forwarded (actionType NONE, or QR for the QR methods); any missing → PENDING,
 * actionType REDIRECT to the HPP; the wrong direction → 400 naming apmPayload.paymentMethod.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { apmBody, type Body, FIELDS, payoutBody } from "./apm.support.js";

let s: TestSandbox;
let token: string;
beforeAll(async () => {
  s = makeSandbox();
  token = await s.token();
});
afterAll(async () => {
  await s.close();
});

/** docs/apm.md table, written out here (not read from the fixtures the server uses). */
const TABLE: Record<string, { payin: boolean; payout: boolean; whenComplete: { status: string; action: string } }> = {
  SMART_E_WALLET: { payin: true, payout: true, whenComplete: { status: "PROCESSING", action: "NONE" } },
  SMART_BANK_TRANSFER: { payin: true, payout: false, whenComplete: { status: "PROCESSING", action: "NONE" } },
  EXTERNAL_HPP_EFT: { payin: true, payout: false, whenComplete: { status: "PENDING", action: "REDIRECT" } },
  SMART_BANK_TRANSFER_PAYOUT: { payin: false, payout: true, whenComplete: { status: "PENDING", action: "NONE" } },
  UPI_QR: { payin: true, payout: false, whenComplete: { status: "PENDING", action: "QR" } },
  PIX_QR: { payin: true, payout: false, whenComplete: { status: "PENDING", action: "QR" } },
  APPLE_PAY: { payin: true, payout: false, whenComplete: { status: "SUCCEED", action: "NONE" } },
  GOOGLE_PAY: { payin: true, payout: false, whenComplete: { status: "SUCCEED", action: "NONE" } },
};

/** Every subset of `keys`. */
const subsets = (keys: string[]): string[][] => keys.reduce<string[][]>((acc, k) => acc.flatMap((s) => [s, [...s, k]]), [[]]);

const cases: Array<{ method: string; direction: "payin" | "payout"; missing: string[] }> = [];
for (const method of Object.keys(TABLE)) {
  for (const direction of ["payin", "payout"] as const) {
    for (const missing of subsets(Object.keys(FIELDS[method] ?? {}))) cases.push({ method, direction, missing });
  }
}

const send = (direction: "payin" | "payout", body: Body) =>
  direction === "payin"
    ? s.http.post("/api/v1/payments/apm").set("authorization", token).send(body)
    : s.http.post("/api/v1/payouts/apm").set("authorization", token).set("referer", "https://shop.example").send(body);

describe("APM table (docs/apm.md)", () => {
  it.each(cases)("$method $direction, missing $missing", async ({ method, direction, missing }) => {
    const payload = Object.fromEntries(Object.entries(FIELDS[method] ?? {}).filter(([k]) => !missing.includes(k)));
    const currency = method === "SMART_E_WALLET" && direction === "payout" ? { currency: "EUR" } : {};
    const body = direction === "payin" ? apmBody(method, {}, payload) : payoutBody(method, currency, payload);
    const res = await send(direction, body);
    if (!TABLE[method]?.[direction]) {
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toBe("Invalid field: apmPayload.paymentMethod");
      return;
    }
    expect(res.status).toBe(200);
    const id = res.body.transactionId;
    // payouts answer PENDING (docs/apm.md)
    const complete = direction === "payout" ? { status: "PENDING", action: "NONE" } : TABLE[method]?.whenComplete;
    const expected = missing.length > 0 ? { status: "PENDING", action: "REDIRECT" } : complete;
    expect(res.body.transactionStatus).toBe(expected?.status);
    expect(res.body.apmResponseData.actionType).toBe(expected?.action);
    if (expected?.action === "REDIRECT")
      expect(res.body.apmResponseData.redirectUrl).toBe(`http://sandbox.test/sandbox/hpp/${id}`);
    if (expected?.action === "QR") expect(res.body.apmResponseData.redirectUrl).toBe(`http://sandbox.test/sandbox/qr/${id}`);
    if (expected?.action === "NONE") expect(res.body.apmResponseData.redirectUrl).toBeUndefined();
    if (expected?.action !== "NONE") {
      const page = await s.http.get(new URL(res.body.apmResponseData.redirectUrl).pathname);
      expect(page.status).toBe(200);
      for (const f of missing) expect(page.text).toContain(`name="${f}"`);
    }
  });
});
