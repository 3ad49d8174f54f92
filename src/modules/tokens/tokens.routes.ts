import { createRoute } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse } from "../../http/schemas.js";
import { CardPaymentResponseSchema } from "../payments/payments.wire.js";
import { ChargeRequestSchema, TokenizeRequestSchema, TokenSchema } from "./tokens.wire.js";

const tags = ["Card tokens and one-click"];

export const tokenizeRoute = createRoute({
  operationId: "createCardToken",
  method: "post",
  path: "/payments/card/tokenize",
  tags,
  summary: "Vault a card and get a token (synchronous: no 3DS, no webhook)",
  request: { body: jsonBody(TokenizeRequestSchema) },
  responses: {
    200: jsonResponse(TokenSchema, "The token; the same for a replayed requestId"),
    ...errorResponses(400, 401, 409, 413),
  },
});

export const chargeRoute = createRoute({
  operationId: "createOneClickCharge",
  method: "post",
  path: "/payments/card/charge",
  tags,
  summary: "One-click charge of a token: the card payment path, same response and callback",
  request: { body: jsonBody(ChargeRequestSchema) },
  responses: {
    200: jsonResponse(CardPaymentResponseSchema, "Outcome (declines are 200 too); the same for a replayed requestId"),
    ...errorResponses(400, 401, 409, 413),
  },
});
