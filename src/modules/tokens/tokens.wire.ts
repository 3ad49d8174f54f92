/**
 * The token and one-click charge bodies on the wire: the schemas that tokens.routes.ts validates
 * and documents with, and the only types of these bodies, inferred from them. A charge answers
 * with the card payment response.
 */
import { z } from "@hono/zod-openapi";
import { httpUrl } from "../../http/schemas.js";
import { BillingDetailsSchema, CurrencySchema, DeviceSchema, MetadataSchema as Metadata, OrderSchema } from "../../http/wire.js";
import { TEST_CARDS } from "../../platform/fixtures.js";
import type { CardPaymentResponse } from "../payments/payments.wire.js";

export const TokenCardSchema = z
  .object({
    number: z.string().openapi({ description: "12-19 digits, Luhn-valid; never stored", example: TEST_CARDS[0]?.number }),
    expMonth: z
      .string()
      .regex(/^(0[1-9]|1[0-2])$/)
      .openapi({ description: "MM", example: "12" }),
    expYear: z
      .string()
      .regex(/^\d{4}$/)
      .openapi({ description: "YYYY, not in the past", example: "2030" }),
    cvv: z
      .string()
      .regex(/^\d{3,4}$/)
      .openapi({ description: "Checked, never stored", example: "737" }),
  })
  .openapi("TokenizeCard");

export const TokenizeRequestSchema = z
  .object({
    requestId: z.string().min(1).max(255).openapi({ description: "Idempotency key, unique per merchant" }),
    merchantId: z
      .union([z.number().int(), z.string().regex(/^\d+$/)])
      .openapi({ description: "The caller's merchantId", example: 1001 }),
    socialSecurityNumber: z.string().nullable().optional().openapi({ description: "Accepted, never stored" }),
    card: TokenCardSchema,
    billingDetails: BillingDetailsSchema,
    metadata: Metadata.optional(),
    expirationDate: z.string().optional().openapi({
      description: "YYYY-MM-DD, not in the past; the token lives the shorter of this and SANDBOX_TOKEN_TTL_DAYS",
      example: "2026-12-31",
    }),
  })
  .openapi("TokenizeRequest");

export type TokenizeRequest = z.infer<typeof TokenizeRequestSchema>;

export const TokenSchema = z
  .object({
    token: z.string().openapi({ example: "tok_4fQ..." }),
    cardMask: z.string().openapi({ example: "411111******1111" }),
    expirationMonth: z.string(),
    expirationYear: z.string(),
    cardBrand: z.string().nullable(),
    cardType: z.string().nullable().openapi({ description: "DEBIT or CREDIT, BIN-derived" }),
    issuingBank: z.string().nullable(),
    cardCountry: z.string().nullable(),
    expirationDate: z.string().openapi({ format: "date", description: "YYYY-MM-DD: usable through this day (virtual clock)" }),
    metadata: Metadata.nullable(),
  })
  .openapi("Token");

export type TokenResponse = z.infer<typeof TokenSchema>;

export const ChargeRequestSchema = z
  .object({
    requestId: z.string().min(1).max(255).openapi({ description: "Idempotency key, unique per merchant" }),
    mid: z.string().min(1).openapi({ example: "sandbox-mid-001" }),
    cardToken: z.string().min(1).openapi({ example: "tok_4fQ..." }),
    amount: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .openapi({ description: "Major units, at most the currency's minor digits", example: "20.50" }),
    currency: CurrencySchema,
    lang: z
      .string()
      .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/)
      .optional(),
    callbackUrl: httpUrl(),
    successRedirectUrl: httpUrl(),
    failureRedirectUrl: httpUrl(),
    billingDetails: BillingDetailsSchema.optional().openapi({ description: "Default: the details stored with the token" }),
    order: OrderSchema.optional(),
    device: DeviceSchema.optional(),
    kycVerified: z.boolean().optional(),
    previousPaymentCount: z.number().int().min(0).optional(),
    metadata: Metadata.optional(),
  })
  .openapi("OneClickChargeRequest");

export type ChargeRequest = z.infer<typeof ChargeRequestSchema>;
export type ChargeResponse = CardPaymentResponse;
