import { isIP } from "node:net";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, httpUrl, jsonBody, jsonResponse, pathParam } from "../../http/schemas.js";
import { TEST_CARDS } from "../../platform/fixtures.js";
import { isCurrency } from "../../platform/money.js";

const tags = ["Card payments"];

const regionNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
const countries = new Map<string, boolean>();
/** ISO 3166-1 alpha-2, judged by ICU's region names (memoized: `Intl.DisplayNames.of` is slow). */
const isCountry = (c: string) => {
  let ok = countries.get(c);
  if (ok === undefined) {
    ok = /^[A-Z]{2}$/.test(c) && c !== "ZZ" && regionNames.of(c) !== undefined;
    if (countries.size < 1000) countries.set(c, ok);
  }
  return ok;
};
/** A real calendar date written YYYY-MM-DD. */
const isDate = (d: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d);
  if (!m) return false;
  const [y, mo, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && day >= 1 && day <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
};

const text = () => z.string().min(1);
const stringish = () => z.union([z.string(), z.number()]);

export const CardSchema = z
  .object({
    number: z.string().openapi({ description: "12-19 digits, Luhn-valid", example: TEST_CARDS[0]?.number }),
    cardHolderName: z.string().optional(),
    expMonth: z
      .string()
      .regex(/^(0[1-9]|1[0-2])$/)
      .openapi({ description: "MM", example: "12" }),
    expYear: z
      .string()
      .regex(/^\d{4}$/)
      .openapi({ description: "YYYY, not in the past", example: "2030" }),
    cvv: z
      .string()
      .regex(/^\d{3,4}$/)
      .openapi({ example: "737" }),
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
    email: z.email(),
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

/** Device fields that become required with requestThreeDSecure (interface §2.1). */
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
    ip: z
      .string()
      .refine((v) => isIP(v) !== 0)
      .openapi({ example: "203.0.113.7" }),
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

const THREE_DS_URLS = ["callbackUrl", "successRedirectUrl", "failureRedirectUrl"] as const;

export const CardPaymentRequestSchema = z
  .object({
    requestId: z.string().min(1).max(255).openapi({ description: "Idempotency key, unique per merchant" }),
    mid: text().openapi({ example: "sandbox-mid-001" }),
    card: CardSchema,
    amount: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .openapi({ description: "Major units, at most the currency's minor digits", example: "20.50" }),
    currency: z.string().refine(isCurrency).openapi({ description: "ISO 4217", example: "USD" }),
    lang: z
      .string()
      .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/)
      .openapi({ example: "en" }),
    callbackUrl: httpUrl().optional().openapi({ description: "Required with requestThreeDSecure" }),
    successRedirectUrl: httpUrl().optional().openapi({ description: "Required with requestThreeDSecure" }),
    failureRedirectUrl: httpUrl().optional().openapi({ description: "Required with requestThreeDSecure" }),
    billingDetails: BillingDetailsSchema,
    order: OrderSchema,
    device: DeviceSchema,
    kycVerified: z.boolean().optional(),
    previousPaymentCount: z.number().int().min(0).optional(),
    metadata: z.record(z.string(), z.string()).optional(),
  })
  .superRefine((body, ctx) => {
    if (!body.card.requestThreeDSecure) return;
    const missing = (path: Array<string>) =>
      ctx.addIssue({ code: "invalid_type", expected: "string", input: undefined, path, message: "received undefined" });
    for (const f of THREE_DS_URLS) if (body[f] === undefined) return missing([f]);
    for (const f of THREE_DS_DEVICE_FIELDS) if (body.device[f] === undefined) return missing(["device", f]);
  })
  .openapi("CardPaymentRequest");

export type CardPaymentRequest = z.infer<typeof CardPaymentRequestSchema>;

export const CardPaymentResponseSchema = z
  .object({
    transactionId: z.string(),
    transactionStatus: z.enum(["SUCCEED", "FAILED", "CUSTOMER_VERIFICATION", "PROCESSING", "PENDING"]),
    declineCode: z.number().int().optional(),
    challengeUrl: z.string().optional(),
    challengeUrlIframe: z.string().optional(),
  })
  .openapi("CardPaymentResponse");

export type CardPaymentResponse = z.infer<typeof CardPaymentResponseSchema>;

export const CardStatusSchema = z
  .object({ transactionId: z.string(), transactionStatus: z.string() })
  .openapi("CardPaymentStatus");

export type CardStatusResponse = z.infer<typeof CardStatusSchema>;

export const CardCallbackSchema = z
  .object({
    transactionId: z.string(),
    requestId: z.string().nullable(),
    mid: z.string(),
    transactionStatus: z.string(),
    declineCode: z.number().int().nullable(),
    cardMask: z.string(),
    cardHolder: z.string().nullable(),
    orderCurrency: z.string(),
    processedCurrency: z.string(),
    orderAmount: z.number(),
    processedAmount: z.number(),
    conversionRate: z.number(),
    callbackUrl: z.string().nullable(),
    billingDetails: z.record(z.string(), z.unknown()),
    order: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  })
  .openapi("CardPaymentCallback", { description: "Interface §6.2; also the info record" });

export type CardInfoResponse = z.infer<typeof CardCallbackSchema>;

const IdParam = pathParam("id", "tx_4fQ...");

export const createCardPaymentRoute = createRoute({
  method: "post",
  path: "/payments/card",
  tags,
  summary: "Create a card payment (SUCCEED, FAILED + declineCode, CUSTOMER_VERIFICATION + challengeUrl, or PROCESSING)",
  request: { body: jsonBody(CardPaymentRequestSchema) },
  responses: {
    200: jsonResponse(CardPaymentResponseSchema, "Outcome (declines are 200 too); the same for a replayed requestId"),
    ...errorResponses(400, 401, 409, 413),
  },
});

export const cardStatusRoute = createRoute({
  method: "get",
  path: "/payments/card/status/{id}",
  tags,
  summary: "Current status of a card transaction",
  request: { params: IdParam },
  responses: { 200: jsonResponse(CardStatusSchema, "Status"), ...errorResponses(401, 404) },
});

export const cardInfoRoute = createRoute({
  method: "get",
  path: "/payments/card/info/{id}",
  tags,
  summary: "A card transaction in the card-callback shape, with declineCode",
  request: { params: IdParam },
  responses: { 200: jsonResponse(CardCallbackSchema, "The record"), ...errorResponses(401, 404) },
});
