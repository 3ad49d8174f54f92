/**
 * A whole, valid APM request for any method of the catalog (docs/apm.md): the document's examples
 * (apm.routes.ts) and `paysandbox trigger` (docs/webhooks.md#building-a-receiver) build theirs here,
 * from the method's own fields, currencies and type, with the checksum its merchant signs.
 */
import { hmacBase64 } from "../../platform/crypto.js";
import { APM_BILLING, EXAMPLE_IP } from "../../platform/examples.js";
import { type ApmMethod, type Direction, FIELD_EXAMPLES, isWallet } from "./methods.js";

export interface ApmExampleOptions {
  requestId: string;
  accountId: string;
  merchantSecret: string;
  callbackUrl: string;
  /** Where the shopper pages send the shopper back (default: the callback's host, `/ok` and `/ko`). */
  redirectBase?: string;
  amount?: string;
}

/** A currency the method takes: USD when any. */
export const currencyOf = (m: ApmMethod): string => (m.currencies === "any" ? "USD" : (m.currencies[0] ?? "USD"));

/** The method's apmPayload with every field it needs (a wallet's encrypted token); the HPP-only ones have none. */
export function payloadOf(m: ApmMethod): Record<string, unknown> {
  const payload: Record<string, unknown> = { paymentMethod: m.paymentMethod, paymentType: m.paymentType };
  for (const f of m.alwaysHpp ? [] : m.requiredFields) payload[f] = FIELD_EXAMPLES[f];
  if (isWallet(m)) payload.token = { paymentData: { data: "BASE64_ENCRYPTED_WALLET_DATA" } };
  return payload;
}

/** A pay-in (POST /api/v1/payments/apm) or payout (POST /api/v1/payouts/apm) body of method `m`. */
export function apmRequestExample(m: ApmMethod, direction: Direction, opts: ApmExampleOptions): Record<string, unknown> {
  const amount = opts.amount ?? "20.50";
  const currency = direction === "payout" ? "USD" : currencyOf(m);
  const base = { requestId: opts.requestId, accountId: opts.accountId, amount, currency, apmPayload: payloadOf(m) };
  if (direction === "payout") return { ...base, callbackUrl: opts.callbackUrl };
  const redirect = opts.redirectBase ?? new URL(opts.callbackUrl).origin;
  const full = isWallet(m)
    ? { ...base, callbackUrl: opts.callbackUrl }
    : {
        ...base,
        order: { orderId: "A-1001" },
        billingDetails: APM_BILLING,
        device: { ip: EXAMPLE_IP },
        callbackUrl: opts.callbackUrl,
        successRedirectUrl: `${redirect}/ok`,
        failureRedirectUrl: `${redirect}/ko`,
      };
  const checksum = hmacBase64(opts.merchantSecret, `${opts.accountId}|${amount}|${currency}|${opts.requestId}`);
  return { ...full, checksum };
}
