/**
 * X-Checksum checked the way a merchant would (docs/webhooks.md): an implementation written
 * here from the contract's table, with node:crypto, over the raw body the receiver got. It does
 * not import src/webhooks/signer.ts.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CallbackKind } from "../../src/webhooks/signer.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { makeCtx, type TestCtx } from "./webhooks.support.js";

/** The contract's table, transcribed. */
const CONTRACT_FIELDS: Record<string, string[]> = {
  "APM payout": ["transactionId", "requestId", "transactionStatus"],
  "APM payment": ["accountId", "orderAmount", "orderCurrency", "transactionId"],
  "card payment, one-click": ["mid", "orderAmount", "orderCurrency", "transactionId"],
  "card payout, refund": ["transactionId", "requestId", "transactionStatus"],
  "subscription charge": ["subscriptionId", "transactionId", "transactionStatus"],
};

/** The raw JSON text of a top-level field's value, exactly as written in the body (numbers: `20.5`). */
function rawField(raw: string, body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value === "string") return value;
  const m = new RegExp(`"${field}"\\s*:\\s*(-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)`).exec(raw);
  if (!m) throw new Error(`no number for ${field} in ${raw}`);
  return m[1]!;
}

function verify(raw: string, header: string, fields: string[], secret: string): boolean {
  const body = JSON.parse(raw) as Record<string, unknown>;
  const message = fields.map((f) => rawField(raw, body, f)).join("|");
  const expected = createHmac("sha256", secret).update(message, "utf8").digest();
  const given = Buffer.from(header, "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const CASES: Array<{ row: string; kind: CallbackKind; paymentMethod: "card" | "apm"; body: Record<string, unknown> }> = [
  {
    row: "card payment, one-click",
    kind: "card_payment",
    paymentMethod: "card",
    body: {
      transactionId: "tx_card",
      requestId: "req-1",
      mid: "MID",
      transactionStatus: "SUCCEED",
      declineCode: null,
      cardMask: "411111******1111",
      orderCurrency: "USD",
      processedCurrency: "EUR",
      orderAmount: 20.5,
      processedAmount: 16.4,
      conversionRate: 0.8,
      createdAt: "2026-01-15T12:00:00.000Z",
    },
  },
  {
    row: "card payout, refund",
    kind: "card_payout",
    paymentMethod: "card",
    body: { transactionId: "po_1", requestId: "req-po", mid: "MID", transactionStatus: "SUCCEED", totalAmount: 1000 },
  },
  {
    row: "card payout, refund",
    kind: "refund",
    paymentMethod: "card",
    body: {
      transactionId: "tx_card",
      refundId: "rf_1",
      requestId: "req-rf",
      mid: "MID",
      transactionStatus: "FAILED",
      totalAmount: 0.01,
    },
  },
  {
    row: "subscription charge",
    kind: "subscription_charge",
    paymentMethod: "card",
    body: {
      subscriptionId: "sub_1",
      transactionId: "tx_sub",
      chargeDate: "2026-02-15",
      amount: 9.99,
      currency: "EUR",
      transactionStatus: "FAILED",
      declineCode: 5,
      failureCount: 1,
      nextChargeDate: "2026-02-16",
    },
  },
  {
    row: "APM payment",
    kind: "apm_payment",
    paymentMethod: "apm",
    body: {
      transactionId: "tx_apm",
      requestId: "req-apm",
      accountId: "ACCOUNT",
      transactionStatus: "SUCCEED",
      orderCurrency: "KWD",
      orderAmount: 1.234,
      processedAmount: 1.234,
    },
  },
  {
    row: "APM payout",
    kind: "apm_payout",
    paymentMethod: "apm",
    body: { transactionId: "po_apm", requestId: "req-apo", accountId: "ACCOUNT", transactionStatus: "PENDING" },
  },
];

let t: TestCtx;
let receiver: Receiver;

beforeEach(async () => {
  t = makeCtx();
  receiver = await startReceiver();
  t.ctx.scenarios.load(
    {
      name: "signing",
      merchants: [
        {
          merchantKey: "other_key",
          merchantSecret: "another secret, not the built-in one",
          mid: "other-mid",
          merchantId: 7001,
          accountId: 8001,
        },
      ],
    },
    "test",
  );
});

afterEach(async () => {
  await t.close();
  await receiver.close();
});

describe("X-Checksum, verified independently from the contract's table", () => {
  for (const merchantKey of ["sandbox_merchant_key", "other_key"]) {
    it.each(CASES)(`$kind (row "$row") signed with ${merchantKey}'s secret`, async ({ row, kind, paymentMethod, body }) => {
      const merchant = t.ctx.merchants.byKey(merchantKey)!;
      const signed = {
        ...body,
        ...("mid" in body ? { mid: merchant.mid } : {}),
        ...("accountId" in body ? { accountId: merchant.accountId } : {}),
      };
      t.ctx.outbox.enqueue({
        merchant,
        kind,
        callbackUrl: `${receiver.url}/cb`,
        paymentMethod,
        ...(paymentMethod === "apm" ? { apmType: "SMART_E_WALLET" } : {}),
        transactionId: String(body.transactionId),
        eventStatus: String(body.transactionStatus),
        body: signed,
      });
      await t.ctx.work.runUntil();

      const [hook] = receiver.received;
      const header = String(hook!.headers["x-checksum"]);
      const fields = CONTRACT_FIELDS[row]!;
      expect(verify(hook!.raw, header, fields, merchant.merchantSecret)).toBe(true);
      // and it is not valid under another secret, or with the fields in another order
      expect(verify(hook!.raw, header, fields, "sandbox_merchant_secret_x")).toBe(false);
      expect(verify(hook!.raw, header, [...fields].reverse(), merchant.merchantSecret)).toBe(false);
    });
  }

  it("numbers are signed as they appear in the body: 20.5, not 20.50", async () => {
    const merchant = t.ctx.merchants.byKey("sandbox_merchant_key")!;
    t.ctx.outbox.enqueue({
      merchant,
      kind: "card_payment",
      callbackUrl: receiver.url,
      paymentMethod: "card",
      transactionId: "tx_n",
      eventStatus: "SUCCEED",
      body: { mid: merchant.mid, orderAmount: 20.5, orderCurrency: "USD", transactionId: "tx_n" },
    });
    await t.ctx.work.runUntil();
    const [hook] = receiver.received;
    expect(hook!.raw).toContain('"orderAmount":20.5');
    const expected = createHmac("sha256", merchant.merchantSecret).update(`${merchant.mid}|20.5|USD|tx_n`).digest("base64");
    expect(hook!.headers["x-checksum"]).toBe(expected);
  });
});
