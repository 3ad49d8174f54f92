/**
 * The wallet merchant-session bodies on the wire: the schemas that wallet.routes.ts validates and
 * documents with, and the only types of these bodies, inferred from them, for the service.
 */
import { z } from "@hono/zod-openapi";
import { httpUrl } from "../../http/schemas.js";
import { text } from "../../http/wire.js";

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
