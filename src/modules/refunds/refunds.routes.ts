import { createRoute } from "@hono/zod-openapi";
import { readRoute } from "../../http/reads.js";
import { errorResponses, jsonBody, jsonResponse } from "../../http/schemas.js";
import { RefundInfoSchema, RefundRequestSchema, RefundResponseSchema, RefundStatusSchema } from "./refunds.wire.js";

const tags = ["Refunds"];

export const createRefundRoute = createRoute({
  operationId: "createRefund",
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
  operationId: "getRefundStatus",
  path: "/refunds/card/status/{id}",
  tags,
  summary: "Current status of a refund",
  example: "rf_4fQ...",
  schema: RefundStatusSchema,
  description: "Status",
});

export const refundInfoRoute = readRoute({
  operationId: "getRefundInfo",
  path: "/refunds/card/info/{id}",
  tags,
  summary: "The refund record, with declineCode when FAILED",
  example: "rf_4fQ...",
  schema: RefundInfoSchema,
  description: "The record",
});
