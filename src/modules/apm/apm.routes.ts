import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../http/env.js";
import { zodToSandboxError } from "../../http/errors.js";
import { readRoute } from "../../http/reads.js";
import { declare } from "../../http/route-use.js";
import { errorResponses, jsonResponse } from "../../http/schemas.js";
import { hmacBase64 } from "../../platform/crypto.js";
import { SandboxError } from "../../platform/errors.js";
import { judgeMethod } from "./apm.rules.js";
import {
  ApmCallbackSchema,
  ApmCreateResponseSchema,
  ApmPaymentRequestSchema,
  ApmPayoutRequestSchema,
  ApmStatusSchema,
} from "./apm.wire.js";
import { type Direction, FIELD_EXAMPLES, METHODS } from "./methods.js";

const tags = ["APM payments and payouts"];

/** One example request per method of the catalog, with a checksum valid for the built-in merchant. */
function paymentExamples() {
  const examples: Record<string, { summary: string; value: unknown }> = {};
  for (const m of METHODS.filter((x) => x.directions.includes("payin"))) {
    const currency = m.currencies === "any" ? "USD" : (m.currencies[0] ?? "USD");
    const requestId = `example-${m.paymentMethod.toLowerCase()}`;
    const payload: Record<string, unknown> = { paymentMethod: m.paymentMethod, paymentType: m.paymentType };
    for (const f of m.alwaysHpp ? [] : m.requiredFields) payload[f] = FIELD_EXAMPLES[f];
    if (m.paymentType === "MOBILE_WALLET") payload.token = { paymentData: { data: "BASE64_ENCRYPTED_WALLET_DATA" } };
    const base = { requestId, accountId: "2001", amount: "20.50", currency, apmPayload: payload };
    const full =
      m.paymentType === "MOBILE_WALLET"
        ? base
        : {
            ...base,
            order: { orderId: "A-1001" },
            billingDetails: {
              firstName: "Jane",
              lastName: "Doe",
              address1: "1 Main St",
              city: "Springfield",
              state: "IL",
              country: "US",
              postalCode: "62701",
              phone: "+15555550100",
              email: "jane@example.com",
              dateOfBirth: "1990-01-31",
            },
            device: { ip: "203.0.113.7" },
            callbackUrl: "https://merchant.example/callback",
            successRedirectUrl: "https://merchant.example/ok",
            failureRedirectUrl: "https://merchant.example/ko",
          };
    const checksum = hmacBase64("sandbox_merchant_secret", `2001|20.50|${currency}|${requestId}`);
    examples[m.paymentMethod] = { summary: `${m.paymentMethod} (${m.actionType})`, value: { ...full, checksum } };
  }
  return examples;
}

function payoutExamples() {
  const examples: Record<string, { summary: string; value: unknown }> = {};
  for (const m of METHODS.filter((x) => x.directions.includes("payout"))) {
    const payload: Record<string, unknown> = { paymentMethod: m.paymentMethod, paymentType: m.paymentType };
    for (const f of m.requiredFields) payload[f] = FIELD_EXAMPLES[f];
    examples[m.paymentMethod] = {
      summary: m.paymentMethod,
      value: {
        requestId: `example-payout-${m.paymentMethod.toLowerCase()}`,
        accountId: "2001",
        amount: "20.50",
        currency: "USD",
        apmPayload: payload,
        callbackUrl: "https://merchant.example/callback",
      },
    };
  }
  return examples;
}

const ID_EXAMPLE = "tx_4fQ...";

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\b/i;
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Runs before the body's validation on the APM create routes (docs/apm.md): the
 * method, its direction, paymentType and currency are judged first, because which fields a body
 * needs depends on them (a payout method sent as a pay-in is refused for its method, not for a
 * field only pay-ins check). A body that is not JSON is left to the validator.
 */
function methodFirst(direction: Direction, body: z.ZodType): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (JSON_TYPE.test(c.req.header("content-type") ?? "")) {
      let raw: unknown;
      try {
        raw = await c.req.json();
      } catch {
        raw = undefined;
      }
      if (isRecord(raw) && isRecord(raw.apmPayload)) {
        try {
          judgeMethod(raw.apmPayload, direction, raw.currency);
        } catch (err) {
          // the method's problem first, then every other one the body has (one answer lists them all)
          if (!(err instanceof SandboxError) || err.status !== 400) throw err;
          const parsed = body.safeParse(raw);
          if (parsed.success) throw err;
          const seen = new Set(err.problems.map((p) => p.field));
          const more = zodToSandboxError(parsed.error, "json", raw).problems.filter((p) => !seen.has(p.field));
          throw new SandboxError(err.code, err.message, [...err.problems, ...more]);
        }
      }
    }
    await next();
  };
}

export const createApmPaymentRoute = createRoute({
  method: "post",
  path: "/payments/apm",
  middleware: [methodFirst("payin", ApmPaymentRequestSchema)],
  tags,
  summary: "Create an APM pay-in (PROCESSING, PENDING + redirect/QR, SUCCEED for wallets, or FAILED)",
  request: {
    body: {
      required: true,
      content: { "application/json": { schema: ApmPaymentRequestSchema, examples: paymentExamples() } },
    },
  },
  responses: {
    200: jsonResponse(ApmCreateResponseSchema, "Accepted (declines are 200 too); the same for a replayed requestId"),
    ...errorResponses(400, 401, 409, 413),
  },
});
declare(createApmPaymentRoute, { faults: "payment" });

export const apmStatusRoute = readRoute({
  path: "/payments/apm/status/{id}",
  tags,
  summary: "Current status of an APM pay-in",
  example: ID_EXAMPLE,
  schema: ApmStatusSchema,
  description: "Status",
});

export const apmInfoRoute = readRoute({
  path: "/payments/apm/info/{id}",
  tags,
  summary: "An APM pay-in in the APM-callback shape (docs/webhooks.md)",
  example: ID_EXAMPLE,
  schema: ApmCallbackSchema,
  description: "The record",
});

export const createApmPayoutRoute = createRoute({
  method: "post",
  path: "/payouts/apm",
  middleware: [methodFirst("payout", ApmPayoutRequestSchema)],
  tags,
  summary: "Create an APM payout (PENDING, then SUCCEED a virtual minute later; needs the Referer header)",
  request: {
    headers: z.object({ referer: z.string().optional().openapi({ description: "Required (docs/apm.md#payouts)" }) }),
    body: {
      required: true,
      content: { "application/json": { schema: ApmPayoutRequestSchema, examples: payoutExamples() } },
    },
  },
  responses: {
    200: jsonResponse(ApmCreateResponseSchema, "Accepted (declines are 200 too); the same for a replayed requestId"),
    ...errorResponses(400, 401, 409, 413),
  },
});
declare(createApmPayoutRoute, { faults: "payout" });

export const apmPayoutInfoRoute = readRoute({
  path: "/payouts/apm/info/{id}",
  tags,
  summary: "An APM payout: the webhook body (payout form)",
  example: ID_EXAMPLE,
  schema: ApmCallbackSchema,
  description: "The record",
});
