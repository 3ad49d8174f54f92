/** The request bodies the benches send. */
import { CARD_BILLING, exampleDevice } from "../../src/platform/examples.js";

/** The billing details every bench body sends: the card examples' (src/platform/examples.ts). */
export const BENCH_BILLING = CARD_BILLING;

/** A valid card payment body (4111…, no 3DS), with a callbackUrl unless it is left out, as JSON text. */
export function paymentBody(requestId: string, callbackUrl?: string): string {
  return JSON.stringify({
    requestId,
    mid: "sandbox-mid-001",
    card: {
      number: "4111111111111111",
      cardHolderName: "Bench Mark",
      expMonth: "12",
      expYear: "2099",
      cvv: "737",
      requestThreeDSecure: false,
    },
    amount: "20.50",
    currency: "USD",
    lang: "en",
    callbackUrl,
    billingDetails: BENCH_BILLING,
    order: { orderId: requestId },
    device: exampleDevice("autocannon"),
  });
}
