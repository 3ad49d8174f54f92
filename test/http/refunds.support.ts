/**
 * Shared set-up of the refund and payout suites: a sandbox, a token, a receiver, and helpers that
 * pay, refund and pay out as the built-in merchant.
 */
import { createHmac } from "node:crypto";
import { BUILTIN, type TestSandbox } from "../helpers/harness.js";
import type { ReceivedHook } from "../helpers/receiver.js";
import { type Body, cardPaymentBody } from "./payments.body.js";

let counter = 0;
export const rid = (label = "r") => `${label}-${process.pid}-${++counter}`;

export function refundBody(transactionId: string, amount: string, over: Record<string, unknown> = {}) {
  return { requestId: rid("rf"), mid: BUILTIN.mid, transactionId, amount, reason: "customer request", ...over };
}

export function payoutBody(over: Record<string, unknown> = {}) {
  return {
    requestId: rid("po"),
    mid: BUILTIN.mid,
    userEmail: "jane@example.com",
    amount: "25.00",
    card: { number: "4111111111111111", cardHolder: "Jane Doe", expMonth: "12", expYear: "2030" },
    ...over,
  };
}

export function client(s: TestSandbox, token: () => string) {
  const post = (path: string, body: unknown) =>
    s.http
      .post(path)
      .set("authorization", token())
      .send(body as object);
  const get = (path: string) => s.http.get(path).set("authorization", token());
  return {
    post,
    get,
    /** A card payment; returns its transactionId (asserting 200). */
    async pay(over: Parameters<typeof cardPaymentBody>[0] = {}): Promise<string> {
      const res = await post("/api/v1/payments/card", cardPaymentBody(over) as Body);
      if (res.status !== 200) throw new Error(`payment failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.transactionId as string;
    },
    refund: (transactionId: string, amount: string, over: Record<string, unknown> = {}) =>
      post("/v1/refunds/card", refundBody(transactionId, amount, over)),
    payout: (over: Record<string, unknown> = {}) => post("/v1/payouts/card", payoutBody(over)),
  };
}

/** X-Checksum computed independently of the project's signer (docs/webhooks.md). */
export function expectedChecksum(secret: string, fields: unknown[]): string {
  const text = fields.map((v) => (v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v))).join("|");
  return createHmac("sha256", secret).update(text, "utf8").digest("base64");
}

/** Verifies a received refund/payout callback: fields transactionId|requestId|transactionStatus as written in the raw body. */
export function verifyStatusSignature(hook: ReceivedHook, secret = BUILTIN.merchantSecret): boolean {
  const body = JSON.parse(hook.raw) as Record<string, unknown>;
  return hook.headers["x-checksum"] === expectedChecksum(secret, [body.transactionId, body.requestId, body.transactionStatus]);
}
