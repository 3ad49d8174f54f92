/**
 * A valid card payment body for the built-in merchant, shared by the payments suites.
 * `cardPaymentBody({ card: { number: "4000000000000002" } })` merges one level deep.
 */
import { CARD_BILLING, exampleDevice, THREE_DS_BROWSER } from "../../src/platform/examples.js";

export const CARDS = {
  visa: "4111111111111111",
  mastercard: "5500000000000004",
  threeDs: "4000000000003220",
  declined: "4000000000000002",
  /** Luhn-valid, in no fixture: the default outcome. */
  other: "4242424242424242",
} as const;

/** The billing details every suite sends (the card examples' shopper, src/platform/examples.ts). */
export const BILLING = CARD_BILLING;

export const DEVICE = exampleDevice("Mozilla/5.0 (sandbox test)");

/** The browser fields 3DS requires, in a timezone other than UTC. */
export const THREE_DS_DEVICE = { ...THREE_DS_BROWSER, deviceTimezone: "-60" };

let counter = 0;

export type Body = Record<string, unknown> & {
  card: Record<string, unknown>;
  billingDetails: Record<string, unknown>;
  order: Record<string, unknown>;
  device: Record<string, unknown>;
};

export function cardPaymentBody(
  over: Partial<{ [K in keyof Body]: unknown }> & { card?: Record<string, unknown>; device?: Record<string, unknown> } = {},
): Body {
  counter++;
  const base: Body = {
    requestId: `req-${process.pid}-${counter}`,
    mid: "sandbox-mid-001",
    card: {
      number: CARDS.visa,
      cardHolderName: "Ada Lovelace",
      expMonth: "12",
      expYear: "2030",
      cvv: "737",
      requestThreeDSecure: false,
    },
    amount: "20.50",
    currency: "USD",
    lang: "en",
    billingDetails: { ...BILLING },
    order: { orderId: "order-1", title: "Difference engine" },
    device: { ...DEVICE },
  };
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = base[k];
    out[k] =
      v && typeof v === "object" && !Array.isArray(v) && b && typeof b === "object" ? { ...(b as object), ...(v as object) } : v;
  }
  return out as Body;
}

/** A body asking for 3DS, with everything 3DS requires. */
export function threeDsBody(callbackUrl: string, over: Parameters<typeof cardPaymentBody>[0] = {}): Body {
  return cardPaymentBody({
    callbackUrl,
    successRedirectUrl: "https://shop.example/ok?cart=7",
    failureRedirectUrl: "https://shop.example/ko",
    ...over,
    card: { requestThreeDSecure: true, ...(over.card ?? {}) },
    device: { ...THREE_DS_DEVICE, ...(over.device ?? {}) },
  });
}
