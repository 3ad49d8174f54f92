/**
 * X-Checksum = Base64(HMAC-SHA256(key = merchantSecret, message)) (docs/webhooks.md).
 * One table for every callback kind: a new kind adds a row here, not a code path.
 */
import { hmacBase64 } from "../platform/crypto.js";

export const SIGNED_FIELDS = {
  apm_payout: ["transactionId", "requestId", "transactionStatus"],
  apm_payment: ["accountId", "orderAmount", "orderCurrency", "transactionId"],
  card_payment: ["mid", "orderAmount", "orderCurrency", "transactionId"],
  card_payout: ["transactionId", "requestId", "transactionStatus"],
  refund: ["transactionId", "requestId", "transactionStatus"],
  subscription_charge: ["subscriptionId", "transactionId", "transactionStatus"],
} as const satisfies Record<string, readonly string[]>;

export type CallbackKind = keyof typeof SIGNED_FIELDS;

/** A field as it appears in the JSON body: numbers in JSON form (20.5, not 20.50), null as "". */
function asWritten(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** The signed message: the kind's fields, in order, joined by `|`. */
export const signedMessage = (kind: CallbackKind, body: Record<string, unknown>): string =>
  SIGNED_FIELDS[kind].map((f) => asWritten(body[f])).join("|");

export const checksum = (kind: CallbackKind, body: Record<string, unknown>, merchantSecret: string): string =>
  hmacBase64(merchantSecret, signedMessage(kind, body));
