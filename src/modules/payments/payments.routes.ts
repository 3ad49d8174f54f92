import { createRoute } from "@hono/zod-openapi";
import { readRoute } from "../../http/reads.js";
import { errorResponses, jsonBody, jsonResponse } from "../../http/schemas.js";
import { cardPaymentRecogniser } from "./payments.recogniser.js";
import { CardInfoSchema, CardPaymentRequestSchema, CardPaymentResponseSchema, CardStatusSchema } from "./payments.wire.js";

const tags = ["Card payments"];

export const createCardPaymentRoute = createRoute({
  operationId: "createCardPayment",
  method: "post",
  path: "/payments/card",
  tags,
  summary: "Create a card payment (SUCCEED, FAILED + declineCode, CUSTOMER_VERIFICATION + challengeUrl, or PROCESSING)",
  request: { body: jsonBody(CardPaymentRequestSchema, undefined, cardPaymentRecogniser(CardPaymentRequestSchema)) },
  responses: {
    200: jsonResponse(CardPaymentResponseSchema, "Outcome (declines are 200 too); the same for a replayed requestId"),
    ...errorResponses(400, 401, 409, 413),
  },
});

export const cardStatusRoute = readRoute({
  operationId: "getCardPaymentStatus",
  path: "/payments/card/status/{id}",
  tags,
  summary: "Current status of a card transaction",
  example: "tx_4fQ...",
  schema: CardStatusSchema,
  description: "Status",
});

export const cardInfoRoute = readRoute({
  operationId: "getCardPaymentInfo",
  path: "/payments/card/info/{id}",
  tags,
  summary: "A card transaction in the card-callback shape, with declineCode and refundedAmount",
  example: "tx_4fQ...",
  schema: CardInfoSchema,
  description: "The record",
});
