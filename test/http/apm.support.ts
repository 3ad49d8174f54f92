/**
 * Request bodies for the APM routes and an independent checksum (node:crypto, not the project's
 * signer): `apmBody("UPI_QR")` is a valid pay-in of that method with every field it needs.
 */
import { createHmac } from "node:crypto";
import { APM_BILLING, EXAMPLE_IP } from "../../src/platform/examples.js";
import { BUILTIN } from "../helpers/harness.js";

export type Body = Record<string, unknown>;

/** Base64(HMAC-SHA256(secret, message)), computed here without the project's code. */
export const hmac = (secret: string, message: string) => createHmac("sha256", secret).update(message).digest("base64");

/** The fields each method needs, with values the catalog's patterns accept. */
export const FIELDS: Record<string, Body> = {
  SMART_E_WALLET: { walletId: "wallet-4471-0090" },
  SMART_BANK_TRANSFER: { accountNumber: "000123456789", bankName: "Sandbox Bank", accountHolderName: "Jane Doe" },
  SMART_BANK_TRANSFER_PAYOUT: {
    accountNumber: "000123456789",
    bankName: "Sandbox Bank",
    accountHolderName: "Jane Doe",
    bankAccountType: "SAVINGS",
  },
  EXTERNAL_HPP_EFT: {},
  UPI_QR: {},
  PIX_QR: {},
  APPLE_PAY: { token: { paymentData: { data: "ZW5jcnlwdGVkLXdhbGxldC1kYXRh" } } },
  GOOGLE_PAY: { token: { paymentData: { data: "ZW5jcnlwdGVkLWdwYXktZGF0YQ==" } } },
};

export const TYPES: Record<string, string> = {
  SMART_E_WALLET: "E_WALLET",
  SMART_BANK_TRANSFER: "BANK_TRANSFER",
  SMART_BANK_TRANSFER_PAYOUT: "BANK_TRANSFER",
  EXTERNAL_HPP_EFT: "BANK_TRANSFER",
  UPI_QR: "BANK_TRANSFER",
  PIX_QR: "BANK_TRANSFER",
  APPLE_PAY: "MOBILE_WALLET",
  GOOGLE_PAY: "MOBILE_WALLET",
};

export const CURRENCY: Record<string, string> = { EXTERNAL_HPP_EFT: "CAD", UPI_QR: "INR", PIX_QR: "BRL" };

let n = 0;

/** Signs a body's accountId|amount|currency|requestId as sent (docs/apm.md#the-request-checksum). */
export function sign(body: Body, secret: string = BUILTIN.merchantSecret): Body {
  return { ...body, checksum: hmac(secret, `${body.accountId}|${body.amount}|${body.currency}|${body.requestId}`) };
}

/** A signed pay-in of `method` with all its fields (or `payload` instead), overridden by `over`. */
export function apmBody(method: string, over: Body = {}, payload?: Body): Body {
  const body: Body = {
    requestId: `apm-${++n}`,
    accountId: String(BUILTIN.accountId),
    amount: "20.50",
    currency: CURRENCY[method] ?? "USD",
    apmPayload: { paymentMethod: method, paymentType: TYPES[method], ...(payload ?? FIELDS[method]) },
    order: { orderId: "A-1001" },
    billingDetails: { ...APM_BILLING },
    device: { ip: EXAMPLE_IP },
    callbackUrl: "http://127.0.0.1:9/cb",
    successRedirectUrl: "https://shop.example/ok",
    failureRedirectUrl: "https://shop.example/ko?order=9",
    ...over,
  };
  return "checksum" in over ? body : sign(body);
}

/** A payout of `method` with all its fields (or `payload` instead). */
export function payoutBody(method = "SMART_BANK_TRANSFER_PAYOUT", over: Body = {}, payload?: Body): Body {
  return {
    requestId: `apm-po-${++n}`,
    accountId: String(BUILTIN.accountId),
    amount: "75.00",
    currency: "EUR",
    apmPayload: { paymentMethod: method, paymentType: TYPES[method], ...(payload ?? FIELDS[method]) },
    callbackUrl: "http://127.0.0.1:9/cb",
    metadata: { batch: "7" },
    ...over,
  };
}
