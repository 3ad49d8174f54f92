import { createRoute } from "@hono/zod-openapi";
import { readRoute } from "../../http/reads.js";
import { errorResponses, jsonBody, jsonResponse } from "../../http/schemas.js";
import { PayoutInfoSchema, PayoutRequestSchema, PayoutResponseSchema, PayoutStatusSchema } from "./payouts.wire.js";

const tags = ["Card payouts"];

export const createPayoutRoute = createRoute({
  operationId: "createCardPayout",
  method: "post",
  path: "/payouts/card",
  tags,
  summary: "Send funds to a card (PENDING, then SUCCEED a virtual minute later; FAILED at once for a declining card)",
  request: { body: jsonBody(PayoutRequestSchema) },
  responses: {
    200: jsonResponse(PayoutResponseSchema, "Accepted (declines are 200 too); the same for a replayed requestId"),
    ...errorResponses(400, 401, 409, 413),
  },
});

export const payoutStatusRoute = readRoute({
  operationId: "getCardPayoutStatus",
  path: "/payouts/card/status/{id}",
  tags,
  summary: "Current status of a card payout",
  example: "po_4fQ...",
  schema: PayoutStatusSchema,
  description: "Status",
});

export const payoutInfoRoute = readRoute({
  operationId: "getCardPayoutInfo",
  path: "/payouts/card/info/{id}",
  tags,
  summary: "A card payout in the payout-callback shape",
  example: "po_4fQ...",
  schema: PayoutInfoSchema,
  description: "The record",
});
