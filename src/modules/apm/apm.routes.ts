import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../http/env.js";
import { zodToSandboxError } from "../../http/errors.js";
import { readRoute } from "../../http/reads.js";
import { declare } from "../../http/route-use.js";
import { errorResponses, jsonResponse } from "../../http/schemas.js";
import { SandboxError } from "../../platform/errors.js";
import { apmRequestExample } from "./apm.examples.js";
import { judgeMethod } from "./apm.rules.js";
import {
  ApmCreateResponseSchema,
  ApmPaymentCallbackSchema,
  ApmPaymentRequestSchema,
  ApmPayoutCallbackSchema,
  ApmPayoutRequestSchema,
  ApmStatusSchema,
} from "./apm.wire.js";
import { type Direction, METHODS } from "./methods.js";

const tags = ["APM payments and payouts"];

const EXAMPLE = {
  accountId: "2001",
  merchantSecret: "sandbox_merchant_secret",
  callbackUrl: "https://merchant.example/callback",
} as const;

/** One example request per method of the catalog, with a checksum valid for the built-in merchant. */
function paymentExamples() {
  const examples: Record<string, { summary: string; value: unknown }> = {};
  for (const m of METHODS.filter((x) => x.directions.includes("payin"))) {
    const value = apmRequestExample(m, "payin", { ...EXAMPLE, requestId: `example-${m.paymentMethod.toLowerCase()}` });
    examples[m.paymentMethod] = { summary: `${m.paymentMethod} (${m.actionType})`, value };
  }
  return examples;
}

function payoutExamples() {
  const examples: Record<string, { summary: string; value: unknown }> = {};
  for (const m of METHODS.filter((x) => x.directions.includes("payout"))) {
    const value = apmRequestExample(m, "payout", { ...EXAMPLE, requestId: `example-payout-${m.paymentMethod.toLowerCase()}` });
    examples[m.paymentMethod] = { summary: m.paymentMethod, value };
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
  operationId: "createApmPayment",
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
  operationId: "getApmPaymentStatus",
  path: "/payments/apm/status/{id}",
  tags,
  summary: "Current status of an APM pay-in",
  example: ID_EXAMPLE,
  schema: ApmStatusSchema,
  description: "Status",
});

export const apmInfoRoute = readRoute({
  operationId: "getApmPaymentInfo",
  path: "/payments/apm/info/{id}",
  tags,
  summary: "An APM pay-in in the APM-callback shape (docs/webhooks.md)",
  example: ID_EXAMPLE,
  schema: ApmPaymentCallbackSchema,
  description: "The record",
});

export const createApmPayoutRoute = createRoute({
  operationId: "createApmPayout",
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
  operationId: "getApmPayoutInfo",
  path: "/payouts/apm/info/{id}",
  tags,
  summary: "An APM payout: the webhook body (payout form)",
  example: ID_EXAMPLE,
  schema: ApmPayoutCallbackSchema,
  description: "The record",
});
