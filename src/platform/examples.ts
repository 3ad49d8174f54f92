/**
 * The parts of an example request that every writer of one shares: the documents' examples
 * (src/modules/apm/apm.examples.ts, the `ip` of src/http/wire.ts), `paysandbox trigger`, the
 * coverage recipes, the test suites and the benches. Two shoppers, as the docs show them: the card
 * examples' (docs/cards.md) and the APM examples', whose methods most often require a phone
 * (docs/apm.md). The test cards are TEST_CARDS (src/platform/fixtures.ts).
 * Frozen: a caller that changes one copies it first (`{ ...CARD_BILLING, email }`).
 */

/** The device IP of every example (a documentation address, RFC 5737). */
export const EXAMPLE_IP = "203.0.113.7";

/** The billing details of the card examples (docs/cards.md). */
export const CARD_BILLING = Object.freeze({
  firstName: "Ada",
  lastName: "Lovelace",
  address1: "1 Analytical Way",
  city: "London",
  state: "LDN",
  country: "GB",
  postalCode: "N1 9GU",
  email: "ada@example.com",
  dateOfBirth: "1990-12-10",
});

/** The phone of the APM examples (most methods require one: docs/apm.md). */
export const EXAMPLE_PHONE = "+15555550100";

/** The billing details of the APM examples (docs/apm.md), the phone where the documents show it. */
export const APM_BILLING = Object.freeze({
  firstName: "Jane",
  lastName: "Doe",
  address1: "1 Main St",
  city: "Springfield",
  state: "IL",
  country: "US",
  postalCode: "62701",
  phone: EXAMPLE_PHONE,
  email: "jane@example.com",
  dateOfBirth: "1990-01-31",
});

/**
 * The browser fields a card payment with requestThreeDSecure must send besides ip and userAgent
 * (THREE_DS_DEVICE_FIELDS of src/http/wire.ts), as docs/cards.md shows them.
 */
export const THREE_DS_BROWSER = Object.freeze({
  accept: "text/html",
  acceptLanguage: "en-US",
  deviceLanguage: "en",
  colorDepth: "24",
  screenHeight: "1080",
  screenWidth: "1920",
  deviceTimezone: "0",
  javaEnabled: false,
  javaScriptEnabled: true,
});

/** A request's device: the example IP, the caller's user agent, and with `threeDs` the browser fields 3DS requires. */
export function exampleDevice(
  userAgent: string,
  threeDs?: "3ds",
): { ip: string; userAgent: string } & Partial<typeof THREE_DS_BROWSER> {
  return threeDs ? { ip: EXAMPLE_IP, userAgent, ...THREE_DS_BROWSER } : { ip: EXAMPLE_IP, userAgent };
}
