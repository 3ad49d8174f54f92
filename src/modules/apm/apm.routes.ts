import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../http/env.js";
import { zodToSandboxError } from "../../http/errors.js";
import { readRoute } from "../../http/reads.js";
import { errorResponses, httpUrl, jsonResponse } from "../../http/schemas.js";
import {
  AmountSchema,
  BillingDetailsSchema,
  CurrencySchema,
  DeclineCodeSchema,
  DeviceSchema,
  instant,
  MetadataSchema,
  OrderSchema,
  RequestIdSchema,
  text,
} from "../../http/wire.js";
import { hmacBase64 } from "../../platform/crypto.js";
import { SandboxError } from "../../platform/errors.js";
import { judgeMethod } from "./apm.rules.js";
import {
  type ApmMethod,
  type Direction,
  FIELD_EXAMPLES,
  fieldValueValid,
  METHODS,
  PAYMENT_METHODS,
  PAYMENT_TYPES,
} from "./methods.js";

const tags = ["APM payments and payouts"];

/** A typed apmPayload field: "" counts as absent (the HPP collects it); otherwise the catalog's pattern. */
const payloadField = (name: string) =>
  z
    .string()
    .refine((v) => v === "" || fieldValueValid(name, v))
    .optional()
    .openapi({ example: FIELD_EXAMPLES[name] });

/** ApmPayload's own fields besides the method identifiers (docs/apm.md table). */
const PAYLOAD_FIELDS = {
  walletId: payloadField("walletId"),
  accountNumber: payloadField("accountNumber"),
  bankName: payloadField("bankName"),
  accountHolderName: payloadField("accountHolderName"),
  bankAccountType: payloadField("bankAccountType").openapi({ description: "CHECKING or SAVINGS" }),
  token: z
    .looseObject({ paymentData: z.looseObject({ data: text() }).optional() })
    .optional()
    .openapi({
      description:
        "MOBILE_WALLET encrypted flow: token.paymentData.data = the wallet's encrypted data (required unless `decrypted` is sent; beside `decrypted`, any token object)",
    }),
  decrypted: z
    .looseObject({ applicationPrimaryAccountNumber: z.string().regex(/^\d{12,19}$/) })
    .optional()
    .openapi({ description: "MOBILE_WALLET decrypted flow: the PAN decides by the test-card table; never stored" }),
};

const pascal = (name: string) =>
  name
    .toLowerCase()
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");

/** One method's payload: its paymentMethod with the one paymentType it goes with. */
const methodPayload = (m: ApmMethod) =>
  z
    .looseObject({
      paymentMethod: z.literal(m.paymentMethod),
      paymentType: z.literal(m.paymentType),
      ...PAYLOAD_FIELDS,
    })
    .openapi(`ApmPayload${pascal(m.paymentMethod)}`, {
      description: `${m.paymentMethod}: paymentType ${m.paymentType}; fields it needs (else the hosted page asks): ${
        m.alwaysHpp ? "always collected on the hosted page" : m.requiredFields.join(", ") || "none"
      }; currencies ${Array.isArray(m.currencies) ? m.currencies.join(", ") : "any"}`,
    });
const PAYLOADS = new Map(METHODS.map((m) => [m.paymentMethod, methodPayload(m)]));

/**
 * ApmPayload for one direction: one variant per method that direction takes, told
 * apart by paymentMethod (a discriminator), each with its own paymentType (docs/apm.md table).
 */
const apmPayloadFor = (direction: Direction) => {
  const variants = METHODS.filter((m) => m.directions.includes(direction)).map((m) => PAYLOADS.get(m.paymentMethod)!);
  return z
    .discriminatedUnion("paymentMethod", variants as [(typeof variants)[number], ...typeof variants])
    .superRefine((payload, ctx) => {
      // docs/wallets.md: the encrypted flow's data, unless the decrypted flow's PAN is sent
      if (payload.token !== undefined && payload.token.paymentData === undefined && payload.decrypted === undefined) {
        ctx.addIssue({
          code: "invalid_type",
          expected: "object",
          input: undefined,
          path: ["token", "paymentData"],
          message: "received undefined",
        });
      }
    })
    .openapi(direction === "payin" ? "ApmPaymentPayload" : "ApmPayoutPayload", {
      description: `The method and its fields: ${direction === "payin" ? "pay-in" : "payout"} methods only, each with its paymentType`,
    });
};

export const ApmPaymentPayloadSchema = apmPayloadFor("payin");
export const ApmPayoutPayloadSchema = apmPayloadFor("payout");

/** ApmBillingDetails (docs/gateway.md#requests-and-answers): the card BillingDetails plus a required phone and national ids. */
export const ApmBillingDetailsSchema = BillingDetailsSchema.extend({
  phone: text(),
  ssn: z.string().optional(),
  identityCode: z.string().optional(),
}).openapi("ApmBillingDetails");

/** Device of an APM request (docs/gateway.md#requests-and-answers): only ip required, plus acceptHeader. */
export const ApmDeviceSchema = DeviceSchema.partial()
  .extend({ ip: DeviceSchema.shape.ip, acceptHeader: z.string().optional() })
  .openapi("ApmDevice");

export const ApmOrderSchema = OrderSchema.extend({
  items: z.array(z.object({ name: z.string(), quantity: z.number().int().min(1), price: z.string() })).optional(),
}).openapi("ApmOrder");

const AccountIdSchema = z.union([text(), z.number().int()]).openapi({ description: "The merchant's accountId", example: "2001" });
const ChecksumSchema = text().openapi({
  description: "Base64(HMAC-SHA256(merchantSecret, `accountId|amount|currency|requestId`)), amount exactly as sent",
});

/** Fields of that wallet pay-ins (paymentType MOBILE_WALLET) may leave out (docs/apm.md). */
const NOT_FOR_WALLETS = ["order", "billingDetails", "device", "callbackUrl", "successRedirectUrl", "failureRedirectUrl"] as const;

export const ApmPaymentRequestSchema = z
  .object({
    requestId: RequestIdSchema,
    accountId: AccountIdSchema,
    apmPayload: ApmPaymentPayloadSchema,
    amount: AmountSchema,
    currency: CurrencySchema,
    metadata: MetadataSchema.optional(),
    order: ApmOrderSchema.optional().openapi({ description: "Required except for MOBILE_WALLET" }),
    billingDetails: ApmBillingDetailsSchema.optional().openapi({ description: "Required except for MOBILE_WALLET" }),
    device: ApmDeviceSchema.optional().openapi({ description: "Required except for MOBILE_WALLET" }),
    callbackUrl: httpUrl().optional().openapi({ description: "Required except for MOBILE_WALLET" }),
    successRedirectUrl: httpUrl().optional().openapi({ description: "Required except for MOBILE_WALLET" }),
    failureRedirectUrl: httpUrl().optional().openapi({ description: "Required except for MOBILE_WALLET" }),
    checksum: ChecksumSchema,
  })
  .superRefine((body, ctx) => {
    if (body.apmPayload.paymentType === "MOBILE_WALLET") return;
    for (const f of NOT_FOR_WALLETS) {
      if (body[f] === undefined) {
        ctx.addIssue({ code: "invalid_type", expected: "string", input: undefined, path: [f], message: "received undefined" });
        return;
      }
    }
  })
  .openapi("ApmPaymentRequest");

export type ApmPaymentRequest = z.infer<typeof ApmPaymentRequestSchema>;

export const ApmPayoutRequestSchema = z
  .object({
    requestId: RequestIdSchema,
    accountId: AccountIdSchema,
    apmPayload: ApmPayoutPayloadSchema,
    amount: AmountSchema,
    currency: CurrencySchema,
    callbackUrl: httpUrl().optional(),
    successRedirectUrl: httpUrl().optional(),
    failureRedirectUrl: httpUrl().optional(),
    metadata: MetadataSchema.optional(),
    order: ApmOrderSchema.optional(),
    billingDetails: ApmBillingDetailsSchema.partial().optional(),
    device: ApmDeviceSchema.optional(),
  })
  .openapi("ApmPayoutRequest");

export type ApmPayoutRequest = z.infer<typeof ApmPayoutRequestSchema>;

const ApmResponseDataSchema = z
  .object({
    paymentMethod: z.enum(PAYMENT_METHODS),
    paymentType: z.enum(PAYMENT_TYPES),
    actionType: z.enum(["NONE", "REDIRECT", "QR"]),
    redirectUrl: z.string().optional(),
    qrData: z.string().optional().openapi({ description: "Base64 PNG of a QR code of qrDeepLink" }),
    qrDeepLink: z.string().optional(),
    providerTransactionId: z.string().optional(),
  })
  .openapi("ApmResponseData");

export const ApmCreateResponseSchema = z
  .object({
    transactionId: z.string(),
    requestId: z.string(),
    transactionStatus: z.enum(["SUCCEED", "FAILED", "PROCESSING", "PENDING"]),
    declineCode: DeclineCodeSchema.optional(),
    declineSubReason: z.string().optional(),
    apmResponseData: ApmResponseDataSchema,
    createdTime: instant().optional().openapi({ description: "Payouts only" }),
  })
  .openapi("ApmCreateResponse");

export type ApmCreateResponseBody = z.infer<typeof ApmCreateResponseSchema>;

const ApmCallbackSchema = z
  .object({
    transactionId: z.string(),
    requestId: z.string().nullable(),
    accountId: z.number().int(),
    transactionStatus: z.string(),
    declineCode: DeclineCodeSchema.nullable(),
    declineSubReason: z.string().nullable(),
    apmType: z.string().nullable(),
    apmRequestPayload: z.record(z.string(), z.unknown()),
    apmResponseData: z.record(z.string(), z.unknown()),
    callbackUrl: z.string().nullable(),
    billingDetails: z.record(z.string(), z.unknown()),
    order: z.record(z.string(), z.unknown()),
    createdAt: instant(),
    metadata: z.record(z.string(), z.string()),
    orderCurrency: z.string().optional().openapi({ description: "Payments only" }),
    processedCurrency: z.string().optional().openapi({ description: "Payments only" }),
    orderAmount: z.number().optional().openapi({ description: "Payments only" }),
    processedAmount: z.number().optional().openapi({ description: "Payments only" }),
    conversionRate: z.number().optional().openapi({ description: "Payments only" }),
    successRedirectUrl: z.string().nullable().optional().openapi({ description: "Payments only" }),
    failureRedirectUrl: z.string().nullable().optional().openapi({ description: "Payments only" }),
  })
  .openapi("ApmCallback", { description: "docs/webhooks.md; also the info record of APM payments and payouts" });

export type ApmInfoResponse = z.infer<typeof ApmCallbackSchema>;

const StatusSchema = z.object({ transactionId: z.string(), transactionStatus: z.string() }).openapi("ApmStatus");

/** One example request per method of the catalog, with a checksum valid for the built-in merchant. */
function paymentExamples() {
  const examples: Record<string, { summary: string; value: unknown }> = {};
  for (const m of METHODS.filter((x) => x.directions.includes("payin"))) {
    const currency = m.currencies === "any" ? "USD" : (m.currencies[0] ?? "USD");
    const requestId = `example-${m.paymentMethod.toLowerCase()}`;
    const payload: Record<string, unknown> = { paymentMethod: m.paymentMethod, paymentType: m.paymentType };
    for (const f of m.alwaysHpp ? [] : m.requiredFields) payload[f] = FIELD_EXAMPLES[f];
    if (m.paymentType === "MOBILE_WALLET") payload.token = { paymentData: { data: "BASE64_ENCRYPTED_WALLET_DATA" } };
    const base = { requestId, accountId: "2001", amount: "20.50", currency, apmPayload: payload };
    const full =
      m.paymentType === "MOBILE_WALLET"
        ? base
        : {
            ...base,
            order: { orderId: "A-1001" },
            billingDetails: {
              firstName: "Jane",
              lastName: "Doe",
              address1: "1 Main St",
              city: "Springfield",
              state: "IL",
              country: "US",
              postalCode: "62701",
              phone: "+15555550100",
              email: "jane@example.com",
              dateOfBirth: "1990-01-31",
            },
            device: { ip: "203.0.113.7" },
            callbackUrl: "https://merchant.example/callback",
            successRedirectUrl: "https://merchant.example/ok",
            failureRedirectUrl: "https://merchant.example/ko",
          };
    const checksum = hmacBase64("sandbox_merchant_secret", `2001|20.50|${currency}|${requestId}`);
    examples[m.paymentMethod] = { summary: `${m.paymentMethod} (${m.actionType})`, value: { ...full, checksum } };
  }
  return examples;
}

function payoutExamples() {
  const examples: Record<string, { summary: string; value: unknown }> = {};
  for (const m of METHODS.filter((x) => x.directions.includes("payout"))) {
    const payload: Record<string, unknown> = { paymentMethod: m.paymentMethod, paymentType: m.paymentType };
    for (const f of m.requiredFields) payload[f] = FIELD_EXAMPLES[f];
    examples[m.paymentMethod] = {
      summary: m.paymentMethod,
      value: {
        requestId: `example-payout-${m.paymentMethod.toLowerCase()}`,
        accountId: "2001",
        amount: "20.50",
        currency: "USD",
        apmPayload: payload,
        callbackUrl: "https://merchant.example/callback",
      },
    };
  }
  return examples;
}

const ID_EXAMPLE = "tx_4fQ...";

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\b/i;
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Runs before the body's validation on the APM create routes (docs/apm.md): the
 * method, its direction, paymentType and currency are judged first, because which fields a body
 * needs depends on them (a payout method sent as a pay-in is refused for its method, not for a
 * field only pay-ins check). A body that is not JSON is left to the validator.
 */
function methodFirst(direction: Direction, body: z.ZodType): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (JSON_TYPE.test(c.req.header("content-type") ?? "")) {
      let raw: unknown;
      try {
        raw = await c.req.json();
      } catch {
        raw = undefined;
      }
      if (isRecord(raw) && isRecord(raw.apmPayload)) {
        try {
          judgeMethod(raw.apmPayload, direction, raw.currency);
        } catch (err) {
          // the method's problem first, then every other one the body has (one answer lists them all)
          if (!(err instanceof SandboxError) || err.status !== 400) throw err;
          const parsed = body.safeParse(raw);
          if (parsed.success) throw err;
          const seen = new Set(err.problems.map((p) => p.field));
          const more = zodToSandboxError(parsed.error, "json", raw).problems.filter((p) => !seen.has(p.field));
          throw new SandboxError(err.code, err.message, [...err.problems, ...more]);
        }
      }
    }
    await next();
  };
}

export const createApmPaymentRoute = createRoute({
  method: "post",
  path: "/payments/apm",
  middleware: [methodFirst("payin", ApmPaymentRequestSchema)],
  tags,
  summary: "Create an APM pay-in (PROCESSING, PENDING + redirect/QR, SUCCEED for wallets, or FAILED)",
  request: {
    body: {
      required: true,
      content: { "application/json": { schema: ApmPaymentRequestSchema, examples: paymentExamples() } },
    },
  },
  responses: {
    200: jsonResponse(ApmCreateResponseSchema, "Accepted (declines are 200 too); the same for a replayed requestId"),
    ...errorResponses(400, 401, 409, 413),
  },
});

export const apmStatusRoute = readRoute({
  path: "/payments/apm/status/{id}",
  tags,
  summary: "Current status of an APM pay-in",
  example: ID_EXAMPLE,
  schema: StatusSchema,
  description: "Status",
});

export const apmInfoRoute = readRoute({
  path: "/payments/apm/info/{id}",
  tags,
  summary: "An APM pay-in in the APM-callback shape (docs/webhooks.md)",
  example: ID_EXAMPLE,
  schema: ApmCallbackSchema,
  description: "The record",
});

export const createApmPayoutRoute = createRoute({
  method: "post",
  path: "/payouts/apm",
  middleware: [methodFirst("payout", ApmPayoutRequestSchema)],
  tags,
  summary: "Create an APM payout (PENDING, then SUCCEED a virtual minute later; needs the Referer header)",
  request: {
    headers: z.object({ referer: z.string().optional().openapi({ description: "Required (docs/apm.md#payouts)" }) }),
    body: {
      required: true,
      content: { "application/json": { schema: ApmPayoutRequestSchema, examples: payoutExamples() } },
    },
  },
  responses: {
    200: jsonResponse(ApmCreateResponseSchema, "Accepted (declines are 200 too); the same for a replayed requestId"),
    ...errorResponses(400, 401, 409, 413),
  },
});

export const apmPayoutInfoRoute = readRoute({
  path: "/payouts/apm/info/{id}",
  tags,
  summary: "An APM payout: the webhook body (payout form)",
  example: ID_EXAMPLE,
  schema: ApmCallbackSchema,
  description: "The record",
});
