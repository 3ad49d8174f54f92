import { createRoute } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse } from "../../http/schemas.js";
import { MerchantSessionByAccountRequestSchema, MerchantSessionRequestSchema, MerchantSessionSchema } from "./wallet.wire.js";

const tags = ["Wallet sessions"];

export const merchantSessionRoute = createRoute({
  operationId: "createWalletSession",
  method: "post",
  path: "/wallet-pay/merchant-session",
  tags,
  summary: "A wallet merchant session for a payment intent (an opaque object to pass through unmodified)",
  request: { body: jsonBody(MerchantSessionRequestSchema) },
  responses: { 200: jsonResponse(MerchantSessionSchema, "The session"), ...errorResponses(400, 401, 413) },
});

export const merchantSessionByAccountRoute = createRoute({
  operationId: "createWalletSessionByAccount",
  method: "post",
  path: "/wallet-pay/merchant-session-by-account",
  tags,
  summary: "A wallet merchant session for the merchant's account (the seven fields of docs/wallets.md)",
  request: { body: jsonBody(MerchantSessionByAccountRequestSchema) },
  responses: { 200: jsonResponse(MerchantSessionSchema, "The session"), ...errorResponses(400, 401, 413) },
});
