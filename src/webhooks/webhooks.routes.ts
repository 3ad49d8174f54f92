import { createRoute, z } from "@hono/zod-openapi";
import { DELIVERY_STATUSES } from "../db/schema/webhooks.js";
import { ADMIN_SECURITY, errorResponses, isoDuration, jsonResponse, pathParam } from "../http/schemas.js";
import { instant } from "../http/wire.js";
import { TRANSACTION_STATUSES } from "../modules/transactions/transitions.js";
import { CALLBACKS } from "./callbacks.routes.js";
import { CHAOS_MODES } from "./chaos.js";
import type { CallbackKind } from "./signer.js";

const tags = ["Sandbox control plane"];
const security = ADMIN_SECURITY;

export const WebhookAttemptSchema = z
  .object({
    at: instant("Virtual time the attempt started"),
    httpStatus: z.number().int().nullable().openapi({ description: "The receiver's status, null when none came" }),
    error: z.string().nullable().openapi({
      description: "Why no response came (timeout, refused, interrupted), or `skipped (copied)` (docs/snapshots.md)",
    }),
  })
  .openapi("WebhookAttempt");

/** A delivery's fields besides its kind and body. */
const DELIVERY = {
  id: z.string().openapi({ example: "wh_4fQ..." }),
  url: z.string().openapi({ description: "callbackUrl with paymentMethod (and apmType) added" }),
  headers: z.record(z.string(), z.string()).openapi({ description: "Sent with every attempt, plus X-Sandbox-Attempt" }),
  status: z.enum(DELIVERY_STATUSES).openapi({
    description: "skipped: pending in the sandbox this one was copied from, never sent by the copy (docs/snapshots.md)",
  }),
  transactionId: z.string().nullable(),
  subscriptionId: z.string().nullable(),
  eventStatus: z.enum(TRANSACTION_STATUSES).openapi({ description: "The transactionStatus the callback reports" }),
  createdAt: instant(),
  nextAttemptAt: instant("When the next attempt is due; null when settled or waiting behind an earlier delivery").nullable(),
  replayOf: z.string().nullable().openapi({ description: "The delivery this one replays" }),
  chaos: z.enum(CHAOS_MODES).nullable().openapi({ description: "The chaos mode applied to this delivery, or null" }),
  attempts: z.array(WebhookAttemptSchema),
};

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** One kind's delivery: its `kind` and the body of that callback kind (callbacks.routes.ts). */
const deliveryOf = <K extends CallbackKind>(kind: K) =>
  z
    .object({
      ...DELIVERY,
      kind: z.literal(kind).openapi({ description: "The callback kind (the signer table's row, docs/webhooks.md#signature)" }),
      body: CALLBACKS[kind].body.openapi({ description: "The callback body, as sent (docs/webhooks.md)" }),
    })
    .openapi(`${pascal(CALLBACKS[kind].name)}Delivery`);

/** A journal entry: one of the kinds' deliveries, told apart by `kind`, whose `body` is that kind's callback. */
export const WebhookDeliverySchema = z
  .discriminatedUnion("kind", [
    deliveryOf("card_payment"),
    deliveryOf("card_payout"),
    deliveryOf("refund"),
    deliveryOf("subscription_charge"),
    deliveryOf("apm_payment"),
    deliveryOf("apm_payout"),
  ])
  .openapi("WebhookDelivery");

export const WebhookJournalQuerySchema = z.strictObject({
  transactionId: z.string().min(1).optional(),
  subscriptionId: z.string().min(1).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100).openapi({ description: "1 to 1000, default 100" }),
});

export type WebhookDeliveryResponse = z.infer<typeof WebhookDeliverySchema>;

export const webhookJournalRoute = createRoute({
  operationId: "listWebhookDeliveries",
  method: "get",
  path: "/_sandbox/webhooks",
  tags,
  security,
  summary: "The webhook delivery journal, newest first",
  request: { query: WebhookJournalQuerySchema },
  responses: { 200: jsonResponse(z.array(WebhookDeliverySchema), "Deliveries with their attempts"), ...errorResponses(400, 401) },
});

export const webhookDeliveryRoute = createRoute({
  operationId: "getWebhookDelivery",
  method: "get",
  path: "/_sandbox/webhooks/{id}",
  tags,
  security,
  summary: "One delivery of the journal, with its attempts (its id is a webhook event's deliveryId)",
  request: { params: pathParam("id") },
  responses: { 200: jsonResponse(WebhookDeliverySchema, "The delivery"), ...errorResponses(401, 404) },
});

export const ReplayRequestSchema = z
  .strictObject({
    chaos: z.enum(CHAOS_MODES).optional().openapi({ description: "Webhook chaos for this replay (docs/webhooks.md)" }),
    delay: isoDuration("With chaos delay: how much virtual time later (default PT5M)", "PT10M").optional(),
  })
  .openapi("WebhookReplayRequest");

export const webhookReplayRoute = createRoute({
  operationId: "replayWebhookDelivery",
  method: "post",
  path: "/_sandbox/webhooks/{id}/replay",
  tags,
  security,
  summary: "Send a delivery again, as a new delivery (same url, body and signature), optionally with chaos",
  request: {
    params: pathParam("id"),
    body: { required: false, content: { "application/json": { schema: ReplayRequestSchema } } },
  },
  responses: { 201: jsonResponse(WebhookDeliverySchema, "The new delivery, due now"), ...errorResponses(400, 401, 404) },
});
