import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, httpUrl, jsonBody, jsonResponse } from "../../http/schemas.js";
import { text } from "../../http/wire.js";

const tags = ["Wallet sessions"];

const origin = () =>
  text().openapi({
    description: "A URL or a bare host; its host must be one of the merchant's walletDomains",
    example: "localhost",
  });

export const MerchantSessionRequestSchema = z
  .object({
    validationUrl: httpUrl().openapi({ example: "https://apple-pay-gateway.apple.com/paymentservices/startSession" }),
    origin: origin(),
    intentToken: text().openapi({ description: "The payment intent token (any non-empty string in the sandbox)" }),
  })
  .openapi("MerchantSessionRequest");

export const MerchantSessionByAccountRequestSchema = z
  .object({
    validationUrl: httpUrl().openapi({ example: "https://apple-pay-gateway.apple.com/paymentservices/startSession" }),
    origin: origin(),
    accountId: z.union([z.number().int(), text()]).openapi({ example: 2001 }),
  })
  .openapi("MerchantSessionByAccountRequest");

export type MerchantSessionRequest = z.infer<typeof MerchantSessionRequestSchema>;
export type MerchantSessionByAccountRequest = z.infer<typeof MerchantSessionByAccountRequestSchema>;

export const MerchantSessionSchema = z
  .object({
    epochTimestamp: z.number().int().openapi({ description: "Virtual now, ms" }),
    expiresAt: z.number().int().openapi({ description: "One hour later, ms" }),
    merchantSessionIdentifier: z.string(),
    nonce: z.string(),
    merchantIdentifier: z.string(),
    domainName: z.string(),
    displayName: z.string(),
    signature: z.string().optional().openapi({ description: "merchant-session only" }),
  })
  .openapi("MerchantSession");

export type MerchantSessionResponse = z.infer<typeof MerchantSessionSchema>;

export const merchantSessionRoute = createRoute({
  method: "post",
  path: "/wallet-pay/merchant-session",
  tags,
  summary: "A wallet merchant session for a payment intent (an opaque object to pass through unmodified)",
  request: { body: jsonBody(MerchantSessionRequestSchema) },
  responses: { 200: jsonResponse(MerchantSessionSchema, "The session"), ...errorResponses(400, 401, 413) },
});

export const merchantSessionByAccountRoute = createRoute({
  method: "post",
  path: "/wallet-pay/merchant-session-by-account",
  tags,
  summary: "A wallet merchant session for the merchant's account (the seven fields of docs/wallets.md)",
  request: { body: jsonBody(MerchantSessionByAccountRequestSchema) },
  responses: { 200: jsonResponse(MerchantSessionSchema, "The session"), ...errorResponses(400, 401, 413) },
});
