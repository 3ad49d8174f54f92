/**
 * The callbacks the sandbox sends (docs/webhooks.md), as the document's OpenAPI 3.1 `webhooks`: one
 * entry per callback kind, the kinds of the signer table (signer.ts), each with the body schema its
 * presenter is typed by, the headers and the query the sandbox adds. The journal's deliveries
 * (webhooks.routes.ts) carry the same bodies, told apart by their `kind`.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.js";
import { ApmPaymentCallbackSchema, ApmPayoutCallbackSchema } from "../modules/apm/apm.wire.js";
import { PAYMENT_METHODS } from "../modules/apm/methods.js";
import { CardCallbackSchema } from "../modules/payments/payments.wire.js";
import { PayoutInfoSchema } from "../modules/payouts/payouts.wire.js";
import { RefundCallbackSchema } from "../modules/refunds/refunds.wire.js";
import { SubscriptionCallbackSchema } from "../modules/subscriptions/subscriptions.wire.js";
import { type CallbackKind, SIGNED_FIELDS } from "./signer.js";

/** Each callback kind of the signer table: its body, its name in the document, and who sends it. */
export const CALLBACKS = {
  card_payment: {
    name: "cardPayment",
    body: CardCallbackSchema,
    summary: "A card payment's status changed (card payments, one-click charges, a subscription's first charge)",
  },
  card_payout: { name: "cardPayout", body: PayoutInfoSchema, summary: "A card payout's status changed" },
  refund: { name: "refund", body: RefundCallbackSchema, summary: "A refund's status changed (PENDING, then final)" },
  subscription_charge: {
    name: "subscriptionCharge",
    body: SubscriptionCallbackSchema,
    summary: "A subscription's scheduled charge is final (to the subscription's callbackUrl)",
  },
  apm_payment: { name: "apmPayment", body: ApmPaymentCallbackSchema, summary: "An APM pay-in's status changed" },
  apm_payout: { name: "apmPayout", body: ApmPayoutCallbackSchema, summary: "An APM payout's status changed" },
} as const satisfies Record<CallbackKind, { name: string; body: z.ZodType; summary: string }>;

export const CALLBACK_KINDS = Object.keys(SIGNED_FIELDS) as CallbackKind[];

const HeadersSchema = z.object({
  "x-checksum": z.string().openapi({
    description:
      "Base64(HMAC-SHA256(merchantSecret, the kind's signed fields joined by `|`)) (docs/webhooks.md#signature); verify it before trusting the body",
  }),
  "x-sandbox-delivery-id": z
    .string()
    .openapi({ description: "The delivery's id in the journal (GET /_sandbox/webhooks/{id}); the same on every attempt" }),
  "x-sandbox-attempt": z
    .string()
    .regex(/^[1-6]$/)
    .openapi({ description: "1 to 6: which attempt this is (docs/webhooks.md#retries)" }),
});

const queryOf = (kind: CallbackKind) =>
  z.object({
    paymentMethod: z
      .enum([kind.startsWith("apm_") ? "apm" : "card"])
      .openapi({ description: "Added to the callbackUrl's own query" }),
    ...(kind.startsWith("apm_")
      ? { apmType: z.enum(PAYMENT_METHODS).openapi({ description: "The APM method, added to the query" }) }
      : {}),
  });

/** The document's `webhooks`: one POST per callback kind, operationId = its name (docs/api.md#operation-ids). */
export function registerCallbackDocs(app: OpenAPIHono<AppEnv>): void {
  for (const kind of CALLBACK_KINDS) {
    const c = CALLBACKS[kind];
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: c.name,
      operationId: c.name,
      tags: ["Webhooks"],
      summary: c.summary,
      description: `Sent to the callbackUrl as \`POST\` with this JSON body, signed over ${SIGNED_FIELDS[kind].join(", ")} (docs/webhooks.md). Any 2xx within 10 s acknowledges it; anything else is retried 5 times (2, 4, 8, 16, 32 virtual minutes apart). \`paysandbox trigger\` sends a real one (docs/webhooks.md#building-a-receiver).`,
      security: [],
      request: {
        headers: HeadersSchema,
        query: queryOf(kind),
        body: { required: true, content: { "application/json": { schema: c.body } } },
      },
      responses: { 200: { description: "Acknowledged (any 2xx); the body is not read" } },
    });
  }
}
