import { createRoute, z } from "@hono/zod-openapi";
import { readRoute } from "../../http/reads.js";
import { errorResponses, httpUrl, jsonBody, jsonResponse } from "../../http/schemas.js";
import { AmountSchema, DeclineCodeSchema, instant, MetadataSchema, RequestIdSchema, text } from "../../http/wire.js";

const tags = ["Refunds"];

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
  .object({ refundId: z.string(), transactionId: z.string(), transactionStatus: z.string() })
  .openapi("RefundStatus");

export const RefundInfoSchema = z
  .object({
    refundId: z.string(),
    transactionId: z.string().openapi({ description: "The refunded (original) transaction" }),
    requestId: z.string().nullable(),
    mid: z.string(),
    transactionStatus: z.string(),
    declineCode: DeclineCodeSchema.optional().openapi({ description: "Only when FAILED" }),
    totalAmount: z.number().openapi({ description: "In the processed currency of the original (docs/refunds-payouts.md)" }),
    callbackUrl: z.string().nullable(),
    createdAt: instant(),
    metadata: z.record(z.string(), z.string()).nullable(),
  })
  .openapi("RefundInfo", { description: "A refund's info record (docs/refunds-payouts.md)" });

export const createRefundRoute = createRoute({
  method: "post",
  path: "/refunds/card",
  tags,
  summary: "Refund a SUCCEED card transaction, whole or in part (PENDING, then SUCCEED a virtual minute later)",
  request: { body: jsonBody(RefundRequestSchema) },
  responses: {
    200: jsonResponse(RefundResponseSchema, "Accepted (declines are 200 too); the same for a replayed requestId"),
    ...errorResponses(400, 401, 404, 409, 413),
  },
});

export const refundStatusRoute = readRoute({
  path: "/refunds/card/status/{id}",
  tags,
  summary: "Current status of a refund",
  example: "rf_4fQ...",
  schema: RefundStatusSchema,
  description: "Status",
});

export const refundInfoRoute = readRoute({
  path: "/refunds/card/info/{id}",
  tags,
  summary: "The refund record, with declineCode when FAILED",
  example: "rf_4fQ...",
  schema: RefundInfoSchema,
  description: "The record",
});
