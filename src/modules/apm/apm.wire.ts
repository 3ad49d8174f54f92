/**
 * The APM bodies on the wire (pay-in and payout requests, the create response, status, callback):
 * the schemas that apm.routes.ts validates and documents with, built from the method catalog, and
 * the only types of these bodies, inferred from them, for the service, apm.present.ts and the
 * handlers.
 */
import { z } from "@hono/zod-openapi";
import { httpUrl } from "../../http/schemas.js";
import {
  AmountSchema,
  BillingDetailsEchoSchema,
  BillingDetailsSchema,
  CurrencySchema,
  DeclineCodeSchema,
  DeviceSchema,
  instant,
  JsonValueSchema,
  MetadataSchema,
  OrderEchoSchema,
  OrderSchema,
  RequestIdSchema,
  text,
} from "../../http/wire.js";
import { statusesOf } from "../transactions/transitions.js";
import {
  type ApmMethod,
  type Direction,
  FIELD_EXAMPLES,
  fieldValueValid,
  METHODS,
  PAYMENT_METHODS,
  PAYMENT_TYPES,
} from "./methods.js";

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
    .object({ paymentData: z.object({ data: text() }).catchall(JsonValueSchema).optional() })
    .catchall(JsonValueSchema)
    .optional()
    .openapi({
      description:
        "MOBILE_WALLET encrypted flow: token.paymentData.data = the wallet's encrypted data (required unless `decrypted` is sent; beside `decrypted`, any token object)",
    }),
  decrypted: z
    .object({ applicationPrimaryAccountNumber: z.string().regex(/^\d{12,19}$/) })
    .catchall(JsonValueSchema)
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
    .object({
      paymentMethod: z.literal(m.paymentMethod),
      paymentType: z.literal(m.paymentType),
      ...PAYLOAD_FIELDS,
    })
    // other keys are kept as sent and echoed (apmRequestPayload): any JSON
    .catchall(JsonValueSchema)
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

/**
 * ApmBillingDetails (docs/gateway.md#requests-and-answers): the card BillingDetails plus a required phone and national ids.
 * A fresh object from BillingDetails' fields, not `.extend`: the document shows no allOf.
 */
export const ApmBillingDetailsSchema = z
  .object({
    ...BillingDetailsSchema.shape,
    phone: text(),
    ssn: z.string().optional(),
    identityCode: z.string().optional(),
  })
  .openapi("ApmBillingDetails");

/** Device of an APM request (docs/gateway.md#requests-and-answers): only ip required, plus acceptHeader. */
export const ApmDeviceSchema = DeviceSchema.partial()
  .extend({ ip: DeviceSchema.shape.ip, acceptHeader: z.string().optional() })
  .openapi("ApmDevice");

export const ApmOrderSchema = z
  .object({
    ...OrderSchema.shape,
    items: z.array(z.object({ name: z.string(), quantity: z.number().int().min(1), price: z.string() })).optional(),
  })
  .openapi("ApmOrder");

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

export const ApmResponseDataSchema = z
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

export type ApmResponseData = z.infer<typeof ApmResponseDataSchema>;

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

export type ApmCreateResponse = z.infer<typeof ApmCreateResponseSchema>;

/**
 * The request's apmPayload as callbacks and info echo it (docs/apm.md): every key as sent and the
 * fields the hosted page collected, card data masked (a wallet token's data, a decrypted PAN), CVVs left out.
 */
export const ApmRequestPayloadEchoSchema = z
  .object({
    paymentMethod: z.enum(PAYMENT_METHODS),
    paymentType: z.enum(PAYMENT_TYPES),
    walletId: z.string().optional(),
    accountNumber: z.string().optional(),
    bankName: z.string().optional(),
    accountHolderName: z.string().optional(),
    bankAccountType: z.string().optional(),
    token: z
      .object({ paymentData: z.object({ data: z.literal("[masked]") }).optional() })
      .optional()
      .openapi({ description: "A wallet token: its data masked" }),
    decrypted: z
      .object({ applicationPrimaryAccountNumber: z.string().openapi({ description: "Masked" }) })
      .optional()
      .openapi({ description: "A decrypted wallet payment: its PAN masked" }),
  })
  .catchall(JsonValueSchema)
  .openapi("ApmRequestPayloadEcho", {
    description: "The request's apmPayload (with the fields the hosted page collected), card data masked; other keys as sent",
  });

export type ApmRequestPayloadEcho = z.infer<typeof ApmRequestPayloadEchoSchema>;

/** The fields of both forms of the APM callback (docs/webhooks.md). */
const APM_CALLBACK = {
  transactionId: z.string(),
  requestId: z.string().nullable(),
  accountId: z.number().int(),
  declineCode: DeclineCodeSchema.nullable(),
  declineSubReason: z.string().nullable(),
  apmType: z.enum(PAYMENT_METHODS).openapi({ description: "The method (paymentMethod)" }),
  apmRequestPayload: ApmRequestPayloadEchoSchema,
  apmResponseData: ApmResponseDataSchema,
  callbackUrl: z.string().nullable(),
  billingDetails: BillingDetailsEchoSchema,
  order: OrderEchoSchema,
  createdAt: instant(),
  metadata: z.record(z.string(), z.string()),
};

/** The APM callback, payout form (docs/webhooks.md): no amounts, currencies or redirect URLs; also the payout's info record. */
export const ApmPayoutCallbackSchema = z
  .object({ ...APM_CALLBACK, transactionStatus: z.enum(statusesOf("apm_payout")) })
  .openapi("ApmPayoutCallback", {
    description: "The APM payout callback (docs/webhooks.md); also the info record of an APM payout",
  });

export type ApmPayoutCallback = z.infer<typeof ApmPayoutCallbackSchema>;

const ApmPaymentStatusEnum = z.enum(statusesOf("apm_payment"));

/** The APM callback, payment form (docs/webhooks.md): the payout form's fields plus amounts, currencies and redirect URLs. */
export const ApmPaymentCallbackSchema = z
  .object({
    ...APM_CALLBACK,
    transactionStatus: ApmPaymentStatusEnum,
    orderCurrency: CurrencySchema,
    processedCurrency: CurrencySchema,
    orderAmount: z.number(),
    processedAmount: z.number(),
    conversionRate: z.number(),
    successRedirectUrl: z.string().nullable(),
    failureRedirectUrl: z.string().nullable(),
  })
  .openapi("ApmPaymentCallback", {
    description: "The APM payment callback (docs/webhooks.md); also the info record of an APM pay-in",
  });

export type ApmPaymentCallback = z.infer<typeof ApmPaymentCallbackSchema>;

export const ApmStatusSchema = z
  .object({ transactionId: z.string(), transactionStatus: ApmPaymentStatusEnum })
  .openapi("ApmStatus");
