/**
 * The card payment bodies on the wire (request, response, status, callback): the schemas that
 * payments.routes.ts validates and documents with, and the only types of these bodies, inferred
 * from them, for the service, present.ts and the handlers.
 */
import { z } from "@hono/zod-openapi";
import { httpUrl } from "../../http/schemas.js";
import {
  AmountSchema,
  BillingDetailsEchoSchema,
  BillingDetailsSchema,
  CardSchema,
  CurrencySchema,
  DeclineCodeSchema,
  DeviceSchema,
  instant,
  MetadataSchema,
  OrderEchoSchema,
  OrderSchema,
  PATTERNS,
  THREE_DS_DEVICE_FIELDS,
  text,
} from "../../http/wire.js";
import { statusesOf } from "../transactions/transitions.js";

/** The kinds the card status and info reads and the card payment callback report (docs/cards.md). */
export const CARD_KINDS = ["card_payment", "card_charge", "subscription_charge"] as const;
/** Their statuses (docs/lifecycles.md): the enum of their reads and callbacks. */
const CardStatusEnum = z.enum(statusesOf(...CARD_KINDS));

/** A card as a payment request sends it. */
export type CardRequest = z.infer<typeof CardSchema>;

const THREE_DS_URLS = ["callbackUrl", "successRedirectUrl", "failureRedirectUrl"] as const;

export const CardPaymentRequestSchema = z
  .object({
    requestId: z.string().min(1).max(255).openapi({ description: "Idempotency key, unique per merchant" }),
    mid: text().openapi({ example: "sandbox-mid-001" }),
    card: CardSchema,
    amount: AmountSchema,
    currency: CurrencySchema,
    lang: z.string().regex(PATTERNS.lang).openapi({ example: "en" }),
    callbackUrl: httpUrl().optional().openapi({ description: "Required with requestThreeDSecure" }),
    successRedirectUrl: httpUrl().optional().openapi({ description: "Required with requestThreeDSecure" }),
    failureRedirectUrl: httpUrl().optional().openapi({ description: "Required with requestThreeDSecure" }),
    billingDetails: BillingDetailsSchema,
    order: OrderSchema,
    device: DeviceSchema,
    kycVerified: z.boolean().optional(),
    previousPaymentCount: z.number().int().min(0).optional(),
    metadata: MetadataSchema.optional(),
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
    declineCode: DeclineCodeSchema.optional(),
    challengeUrl: z.string().optional(),
    challengeUrlIframe: z.string().optional(),
  })
  .openapi("CardPaymentResponse");

export type CardPaymentResponse = z.infer<typeof CardPaymentResponseSchema>;

export const CardStatusSchema = z
  .object({ transactionId: z.string(), transactionStatus: CardStatusEnum })
  .openapi("CardPaymentStatus");

export type CardStatusResponse = z.infer<typeof CardStatusSchema>;

/**
 * The fields every card callback starts with, in their wire order: card payments' and card payouts'
 * (docs/webhooks.md), each with the transactionStatus enum of its kinds.
 */
export function cardCallbackHead<S extends z.ZodTypeAny>(transactionStatus: S) {
  return {
    transactionId: z.string(),
    requestId: z.string().nullable(),
    mid: z.string(),
    transactionStatus,
    declineCode: DeclineCodeSchema.nullable(),
    cardMask: z.string(),
    cardHolder: z.string().nullable(),
  };
}

const CARD_CALLBACK = {
  ...cardCallbackHead(CardStatusEnum),
  orderCurrency: CurrencySchema,
  processedCurrency: CurrencySchema,
  orderAmount: z.number(),
  processedAmount: z.number(),
  conversionRate: z.number(),
  callbackUrl: z.string().nullable(),
  billingDetails: BillingDetailsEchoSchema,
  order: OrderEchoSchema,
  createdAt: instant(),
};

export const CardCallbackSchema = z.object(CARD_CALLBACK).openapi("CardPaymentCallback", {
  description: "The card payment callback (docs/webhooks.md): card payments, one-click charges and a subscription's first charge",
});

export type CardCallback = z.infer<typeof CardCallbackSchema>;

/** The info record (docs/cards.md): the callback's fields and refundedAmount (a fresh object: the document shows no allOf). */
export const CardInfoSchema = z
  .object({
    ...CARD_CALLBACK,
    refundedAmount: z.number().openapi({ description: "The refunds that are not FAILED, order currency (0 when none)" }),
  })
  .openapi("CardPaymentInfo", { description: "A card transaction: the card payment callback's fields and refundedAmount" });

export type CardInfo = z.infer<typeof CardInfoSchema>;
