/**
 * The wallet merchant-session bodies on the wire: the schemas that wallet.routes.ts validates and
 * documents with, and the only types of these bodies, inferred from them, for the service.
 */
import { z } from "@hono/zod-openapi";
import { httpUrl } from "../../http/schemas.js";
import { text } from "../../http/wire.js";

const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const IPV4_PART = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const PORT = "(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}|0)";

/**
 * An origin as the wallet's page gives it (docs/wallets.md): a bare host or an http(s) URL, with an
 * optional port and path. The host is a name whose last label starts with a letter, or an IPv4
 * address: every such origin has a host (WalletService.hostOf), so the document's pattern is the rule.
 */
export const ORIGIN_PATTERN = new RegExp(
  `^(?:https?://)?(?:(?:${LABEL}\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?|(?:${IPV4_PART}\\.){3}${IPV4_PART})(?::${PORT})?(?:/\\S*)?$`,
);

const origin = () =>
  z.string().regex(ORIGIN_PATTERN).openapi({
    description:
      "A bare host or an http(s) URL (optional port and path). Its host must be one of the authenticated merchant's walletDomains: a rule that holds at run time (400 `Invalid field: origin`, naming them)",
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
