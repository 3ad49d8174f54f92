/**
 * The refund bodies on the wire (request, response, status, info, callback): the schemas that
 * refunds.routes.ts validates and documents with, and the only types of these bodies, inferred
 * from them, for the service, refunds.present.ts and the handlers.
 */
import { z } from "@hono/zod-openapi";
import { httpUrl } from "../../http/schemas.js";
import { AmountSchema, DeclineCodeSchema, instant, MetadataSchema, RequestIdSchema, text } from "../../http/wire.js";
import { statusesOf } from "../transactions/transitions.js";

const RefundStatusEnum = z.enum(statusesOf("refund"));

export const RefundRequestSchema = z
  .object({
    requestId: RequestIdSchema,
    mid: text().openapi({ example: "sandbox-mid-001" }),
    transactionId: text().openapi({ description: "The SUCCEED card transaction to refund", example: "tx_4fQ..." }),
    amount: AmountSchema.openapi({
      description: "In the order currency; the refunds that are not FAILED add up to the order amount at most",
    }),
    reason: text().openapi({ example: "customer request" }),
    callbackUrl: httpUrl().optional().openapi({ description: "Where the refund callbacks go (none without it)" }),
    metadata: MetadataSchema.optional(),
  })
  .openapi("RefundRequest");

export type RefundRequest = z.infer<typeof RefundRequestSchema>;

export const RefundResponseSchema = z
  .object({
    refundId: z.string(),
    transactionStatus: z.enum(["PENDING", "PROCESSING", "FAILED"]),
    declineCode: DeclineCodeSchema.optional(),
  })
  .openapi("RefundResponse");

export type RefundCreateResponse = z.infer<typeof RefundResponseSchema>;

export const RefundStatusSchema = z
  .object({ refundId: z.string(), transactionId: z.string(), transactionStatus: RefundStatusEnum })
  .openapi("RefundStatus");

export const RefundInfoSchema = z
  .object({
    refundId: z.string(),
    transactionId: z.string().openapi({ description: "The refunded (original) transaction" }),
    requestId: z.string().nullable(),
    mid: z.string(),
    transactionStatus: RefundStatusEnum,
    declineCode: DeclineCodeSchema.optional().openapi({ description: "Only when FAILED" }),
    totalAmount: z.number().openapi({ description: "In the processed currency of the original (docs/refunds-payouts.md)" }),
    callbackUrl: z.string().nullable(),
    createdAt: instant(),
    metadata: z.record(z.string(), z.string()).nullable(),
  })
  .openapi("RefundInfo", { description: "A refund's info record (docs/refunds-payouts.md)" });

export type RefundInfo = z.infer<typeof RefundInfoSchema>;

/**
 * The refund callback body (docs/webhooks.md): the info record's fields but metadata, with declineCode
 * always present (null unless FAILED). A fresh object (the document shows no allOf); in the
 * document's `webhooks`.
 */
const { declineCode: _info, metadata: _metadata, ...REFUND_FIELDS } = RefundInfoSchema.shape;
export const RefundCallbackSchema = z
  .object({ ...REFUND_FIELDS, declineCode: DeclineCodeSchema.nullable() })
  .openapi("RefundCallback", { description: "The refund callback (docs/webhooks.md)" });

export type RefundCallback = z.infer<typeof RefundCallbackSchema>;
