/**
 * Wire schemas shared by several gateway routes (docs/gateway.md#requests-and-answers), defined once
 * here: composed per route with `.omit` / `.extend`, never copied. The schema that
 * validates is the schema that documents (/openapi.json).
 */
import { isIP } from "node:net";
import { z } from "@hono/zod-openapi";
import { EXAMPLE_IP } from "../platform/examples.js";
import { CURRENCIES, DECLINE_CODES, TEST_CARDS } from "../platform/fixtures.js";
import { isCurrency } from "../platform/money.js";

const regionNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
const countries = new Map<string, boolean>();
/** ISO 3166-1 alpha-2, judged by ICU's region names (memoized: `Intl.DisplayNames.of` is slow). */
export const isCountry = (c: string) => {
  let ok = countries.get(c);
  if (ok === undefined) {
    ok = /^[A-Z]{2}$/.test(c) && c !== "ZZ" && regionNames.of(c) !== undefined;
    if (countries.size < 1000) countries.set(c, ok);
  }
  return ok;
};
/** A real calendar date written YYYY-MM-DD. */
export const isDate = (d: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d);
  if (!m) return false;
  const [y, mo, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && day >= 1 && day <= daysInMonth(y, mo);
};
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** Days in month `mo` (1–12) of year `y`, proleptic Gregorian (year 0000 is a leap year). */
const daysInMonth = (y: number, mo: number) =>
  mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : (DAYS[mo - 1] as number);

/** The patterns of the card and amount fields (shared with payments.recogniser.ts, which must agree with zod). */
export const PATTERNS = {
  expMonth: /^(0[1-9]|1[0-2])$/,
  expYear: /^\d{4}$/,
  cvv: /^\d{3,4}$/,
  amount: /^\d+(\.\d+)?$/,
  lang: /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/,
  email: emailPattern(),
} as const;

/**
 * An e-mail address, one rule on both sides (docs/api.md#openapi-and-sdks): a dot-atom local part
 * (RFC 5322 atext) `@` a host name of at least two labels whose last starts with a letter. Every
 * such address is a valid `format: email` (RFC 5321 mailbox) too, and the document shows this pattern
 * beside the format, so what a client draws from the document is what the server accepts.
 */
function emailPattern(): RegExp {
  const atext = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
  const label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
  const top = "[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
  return new RegExp(`^${atext}(?:\\.${atext})*@(?:${label}\\.)+${top}$`);
}

/** An e-mail address (EMAIL_PATTERN's rule, shown as `format: email` with the pattern). */
export const email = () => z.string().regex(PATTERNS.email).openapi({ format: "email", example: "jane@example.com" });

/** device.ip's refine. */
export const isIpAddress = (v: string) => isIP(v) !== 0;

/** A required non-empty string. */
export const text = () => z.string().min(1);
const stringish = () => z.union([z.string(), z.number()]);

export const CardSchema = z
  .object({
    number: z.string().openapi({ description: "12-19 digits, Luhn-valid", example: TEST_CARDS[0]?.number }),
    cardHolderName: z.string().optional(),
    expMonth: z.string().regex(PATTERNS.expMonth).openapi({ description: "MM", example: "12" }),
    expYear: z.string().regex(PATTERNS.expYear).openapi({ description: "YYYY, not in the past", example: "2030" }),
    cvv: z.string().regex(PATTERNS.cvv).openapi({ example: "737" }),
    requestThreeDSecure: z.boolean(),
  })
  .openapi("Card");

export const BillingDetailsSchema = z
  .object({
    externalUserId: z.string().optional(),
    firstName: text(),
    lastName: text(),
    address1: text(),
    city: text(),
    state: text(),
    country: z.string().refine(isCountry).openapi({ description: "ISO 3166-1 alpha-2", example: "US" }),
    postalCode: text(),
    phone: z.string().optional(),
    email: email(),
    dateOfBirth: z.string().refine(isDate).openapi({ description: "YYYY-MM-DD", example: "1990-01-31" }),
  })
  .openapi("BillingDetails");

export const OrderSchema = z
  .object({
    date: z.string().optional(),
    orderId: z.string().optional(),
    title: z.string().optional(),
    siteId: z.string().optional(),
    name: z.string().optional(),
    domainName: z.string().optional(),
  })
  .openapi("Order");

const echoed = () => z.string().optional();

/**
 * Billing details as a record or callback echoes them: what the request gave (a card token's for a
 * one-click or subscription charge, docs/tokens.md), field for field; `{}` when none was given.
 */
export const BillingDetailsEchoSchema = z
  .object({
    externalUserId: echoed(),
    firstName: echoed(),
    lastName: echoed(),
    address1: echoed(),
    city: echoed(),
    state: echoed(),
    country: echoed(),
    postalCode: echoed(),
    phone: echoed(),
    email: echoed(),
    dateOfBirth: echoed(),
    ssn: echoed().openapi({ description: "APM only" }),
    identityCode: echoed().openapi({ description: "APM only" }),
  })
  .openapi("BillingDetailsEcho", {
    description: "The billing details the request gave (or its card token's), as given; {} when none",
  });
export type BillingDetailsEcho = z.infer<typeof BillingDetailsEchoSchema>;

/** An order as a record or callback echoes it: what the request gave; `{}` when none (an APM payout without one). */
export const OrderEchoSchema = z
  .object({
    date: echoed(),
    orderId: echoed(),
    title: echoed(),
    siteId: echoed(),
    name: echoed(),
    domainName: echoed(),
    items: z
      .array(z.object({ name: z.string(), quantity: z.number().int(), price: z.string() }))
      .optional()
      .openapi({ description: "APM only" }),
  })
  .openapi("OrderEcho", { description: "The order the request gave, as given; {} when none" });
export type OrderEcho = z.infer<typeof OrderEchoSchema>;

/** Any JSON value (a step's request body, an APM payload's own keys): typed, not `unknown`, for a generated client. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValueSchema: z.ZodType<JsonValue> = z
  .lazy(() =>
    z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValueSchema), z.record(z.string(), JsonValueSchema)]),
  )
  .openapi("JsonValue", { description: "Any JSON value" });

/** Device fields that become required with requestThreeDSecure (docs/gateway.md#requests-and-answers). */
export const THREE_DS_DEVICE_FIELDS = [
  "accept",
  "acceptLanguage",
  "deviceLanguage",
  "colorDepth",
  "screenHeight",
  "screenWidth",
  "deviceTimezone",
  "javaEnabled",
  "javaScriptEnabled",
] as const;

export const DeviceSchema = z
  .object({
    deviceId: z.string().optional(),
    fingerprintData: z.string().optional(),
    ip: z.string().refine(isIpAddress).openapi({ example: EXAMPLE_IP }),
    userAgent: text(),
    accept: z.string().optional(),
    acceptLanguage: z.string().optional(),
    deviceLanguage: z.string().optional(),
    colorDepth: stringish().optional(),
    screenHeight: stringish().optional(),
    screenWidth: stringish().optional(),
    deviceTimezone: stringish().optional(),
    javaEnabled: z.boolean().optional(),
    javaScriptEnabled: z.boolean().optional(),
  })
  .openapi("Device", { description: "ip and userAgent always; the others too when card.requestThreeDSecure is true" });

/** A request amount: a string of major units (interface conventions), checked against the currency's digits later. */
export const AmountSchema = z
  .string()
  .regex(PATTERNS.amount)
  .openapi({ description: "Major units, at most the currency's minor digits", example: "20.50" });

/** The ISO 4217 codes of fixtures/currencies.json: the values a currency field takes. */
export const CURRENCY_CODES = Object.keys(CURRENCIES) as [string, ...string[]];

/**
 * An ISO 4217 code from fixtures/currencies.json, documented as the enum of those codes (the refine
 * is the same rule, written as a lookup so that a 400 says what a currency looks like).
 */
export const CurrencySchema = z.string().refine(isCurrency).openapi("Currency", {
  type: "string",
  enum: CURRENCY_CODES,
  description: "ISO 4217 (fixtures/currencies.json)",
  example: "USD",
});

/** Map<String,String> echoed back in records and callbacks. */
export const MetadataSchema = z.record(z.string(), z.string()).openapi({ example: { orderRef: "A-1001" } });

/** A request's idempotency key (docs/api.md). */
export const RequestIdSchema = z.string().min(1).max(255).openapi({ description: "Idempotency key, unique per merchant" });

/**
 * An enum whose absence reads `Missing required field: x`: zod 4 gives a bare `z.enum` an
 * `invalid_value` issue even when the field is absent, which the shared hook reports as invalid.
 */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .pipe(z.enum(values))
    .openapi({ type: "string", enum: [...values] });

/**
 * A decline code of fixtures/decline-codes.json (docs/api.md), documented as an integer enum with
 * the names. Inline, not a named component: a nullable reference is documented as allOf[ref,
 * {type: [integer, null]}], and allOf would still refuse the null.
 */
export const DeclineCodeSchema = z
  .enum(Object.fromEntries(DECLINE_CODES.map((d) => [d.name, d.code])) as Record<string, number>)
  .openapi({ description: `Why it FAILED: ${DECLINE_CODES.map((d) => `${d.code} ${d.name}`).join(", ")}` });

/** An instant as answered: ISO 8601 in UTC with milliseconds (`2026-01-15T12:00:00.000Z`). */
export const instant = (description?: string) =>
  z.string().openapi({ format: "date-time", ...(description ? { description } : {}) });
