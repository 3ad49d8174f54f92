/**
 * The card payout bodies on the wire (request, response, status, callback): the schemas that
 * payouts.routes.ts validates and documents with, and the only types of these bodies, inferred
 * from them, for the service, payouts.present.ts and the handlers.
 */
import { z } from "@hono/zod-openapi";
import { httpUrl } from "../../http/schemas.js";
import {
  AmountSchema,
  CardSchema,
  CurrencySchema,
  DeclineCodeSchema,
  email,
  instant,
  MetadataSchema,
  RequestIdSchema,
  text,
} from "../../http/wire.js";
import { cardCallbackHead } from "../payments/payments.wire.js";
import { statusesOf } from "../transactions/transitions.js";

const PayoutStatusEnum = z.enum(statusesOf("card_payout"));

/** CardDetails of a card payout (docs/gateway.md#requests-and-answers): cardHolder required, cvv optional. */
export const PayoutCardSchema = CardSchema.omit({ cardHolderName: true, requestThreeDSecure: true, cvv: true })
  .extend({
    cardHolder: text().openapi({ example: "Jane Doe" }),
    cvv: CardSchema.shape.cvv.optional(),
  })
  .openapi("PayoutCardDetails");

/** BillingDetails of a card payout (docs/gateway.md#requests-and-answers): every field optional. */
export const PayoutBillingDetailsSchema = z
  .object({
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    address: z.string().optional(),
    postalCode: z.string().optional(),
    city: z.string().optional(),
    state: z.string().optional(),
    countryCode: z.string().optional().openapi({ description: "ISO 3166-1 alpha-2" }),
    phone: z.string().optional(),
    email: z.string().optional(),
  })
  .openapi("PayoutBillingDetails");

export const PayoutRequestSchema = z
  .object({
    requestId: RequestIdSchema,
    mid: text().openapi({ example: "sandbox-mid-001" }),
    userEmail: email().openapi({ description: "Recipient e-mail" }),
    amount: AmountSchema,
    currency: CurrencySchema.optional().openapi({
      description: "Sandbox addition (the interface names none): ISO 4217; default the merchant's processingCurrency, else USD",
    }),
    card: PayoutCardSchema,
    billingDetails: PayoutBillingDetailsSchema.optional(),
    callbackUrl: httpUrl().optional().openapi({ description: "Where the payout callbacks go" }),
    metadata: MetadataSchema.optional(),
  })
  .openapi("CardPayoutRequest");

export type PayoutRequest = z.infer<typeof PayoutRequestSchema>;

export const PayoutResponseSchema = z
  .object({
    transactionId: z.string(),
    transactionStatus: z.enum(["PENDING", "PROCESSING", "FAILED"]),
    declineCode: DeclineCodeSchema.optional(),
  })
  .openapi("CardPayoutResponse");

export type PayoutCreateResponse = z.infer<typeof PayoutResponseSchema>;

export const PayoutStatusSchema = z
  .object({ transactionId: z.string(), transactionStatus: PayoutStatusEnum })
  .openapi("CardPayoutStatus");

export const PayoutInfoSchema = z
  .object({
    ...cardCallbackHead(PayoutStatusEnum),
    totalAmount: z.number(),
    callbackUrl: z.string().nullable(),
    createdAt: instant(),
  })
  .openapi("CardPayoutCallback", { description: "docs/webhooks.md; also the info record (docs/refunds-payouts.md)" });

export type PayoutCallback = z.infer<typeof PayoutInfoSchema>;
