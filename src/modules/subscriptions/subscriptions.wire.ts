/**
 * The subscription bodies on the wire (create, update, the record): the schemas that
 * subscriptions.routes.ts validates and documents with, and the only types of these bodies,
 * inferred from them, for the service and subscriptions.present.ts.
 */
import { z } from "@hono/zod-openapi";
import { httpUrl } from "../../http/schemas.js";
import {
  BillingDetailsEchoSchema,
  BillingDetailsSchema,
  CurrencySchema,
  DeclineCodeSchema,
  DeviceSchema,
  instant,
  MetadataSchema as Metadata,
  OrderSchema,
  oneOf as requiredEnum,
} from "../../http/wire.js";
import { DECLINE_CODES } from "../../platform/fixtures.js";
import { createStatusesOf, statusesOf } from "../transactions/transitions.js";
import { FREQUENCIES } from "./schedule.js";

/** A subscription's statuses (docs/lifecycles.md#subscriptions); the moves between them are subscriptions.rules.ts. */
export const SUBSCRIPTION_STATUSES = ["PENDING", "TRIALING", "ACTIVE", "PAUSED", "CANCELED"] as const;

const date = (description: string) =>
  z.string().openapi({ description: `YYYY-MM-DD (UTC). ${description}`, format: "date", example: "2026-02-01" });

export const PlanSchema = z
  .object({
    amount: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .openapi({ description: "Per billing cycle, major units, at most the currency's minor digits", example: "9.99" }),
    currency: z.string().openapi({ description: "ISO 4217", example: "USD" }),
    frequency: requiredEnum(FREQUENCIES).openapi({ description: "CUSTOM = every `interval` days" }),
    interval: z.number().int().min(1).openapi({ description: "Multiplier, 1 to 1000 (MONTHLY 3 = quarterly)", example: 1 }),
    startDate: date("Not before today"),
    endDate: date("Optional; no charge after it, then CANCELED").optional(),
  })
  .openapi("Plan");

export type PlanRequest = z.infer<typeof PlanSchema>;

export const CreateSubscriptionRequestSchema = z
  .object({
    requestId: z.string().min(1).max(255).openapi({ description: "Idempotency key, unique per merchant" }),
    mid: z.string().min(1).openapi({ example: "sandbox-mid-001" }),
    cardToken: z.string().min(1).openapi({ example: "tok_4fQ..." }),
    plan: PlanSchema,
    billingDetails: BillingDetailsSchema.optional().openapi({ description: "Default: the details stored with the token" }),
    order: OrderSchema,
    device: DeviceSchema,
    skipFirstCharge: z.boolean().optional().openapi({ description: "true → TRIALING, first charge on plan.startDate" }),
    callbackUrl: httpUrl(),
    successRedirectUrl: httpUrl(),
    failureRedirectUrl: httpUrl(),
    metadata: Metadata.optional(),
  })
  .openapi("CreateSubscriptionRequest");

export type CreateSubscriptionRequest = z.infer<typeof CreateSubscriptionRequestSchema>;

const nullable = <T extends z.ZodType>(t: T) => t.nullable();

export const CreateSubscriptionResponseSchema = z
  .object({
    subscriptionId: nullable(z.string()).openapi({ description: "null when the first charge was declined" }),
    status: nullable(z.enum(SUBSCRIPTION_STATUSES)),
    transactionId: nullable(z.string()).openapi({ description: "The first charge; null with skipFirstCharge" }),
    transactionStatus: nullable(z.enum(createStatusesOf("subscription_charge"))),
    declineCode: nullable(DeclineCodeSchema),
    challengeUrl: nullable(z.string()),
    challengeUrlIframe: nullable(z.string()),
    nextChargeDate: nullable(z.string().openapi({ format: "date", description: "YYYY-MM-DD (UTC)" })),
  })
  .openapi("CreateSubscriptionResponse");

export type CreateSubscriptionResponse = z.infer<typeof CreateSubscriptionResponseSchema>;

// a fresh object, not CreateSubscriptionResponseSchema.extend: that is documented as allOf, which a generator
// reads as an intersection and a strict check cannot close
export const SubscriptionSchema = z
  .object({
    ...CreateSubscriptionResponseSchema.shape,
    subscriptionId: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    transactionId: nullable(z.string()).openapi({ description: "The latest charge (creation or scheduled)" }),
    transactionStatus: nullable(z.enum(statusesOf("subscription_charge"))).openapi({ description: "The latest charge's" }),
    createdAt: instant(),
    // a fresh object, not PlanSchema.extend: that is documented as allOf[Plan, ...], and allOf would
    // still demand Plan's string endDate where null is sent
    plan: z
      .object({ ...PlanSchema.shape, endDate: nullable(date("null when the subscription has no end")) })
      .openapi("SubscriptionPlan"),
    billingDetails: nullable(BillingDetailsEchoSchema),
    metadata: nullable(Metadata),
    failureCount: z.number().int().openapi({ description: "Consecutive failed charges" }),
  })
  .openapi("Subscription");

export type SubscriptionResponse = z.infer<typeof SubscriptionSchema>;

/** The subscription callback of a scheduled charge (docs/webhooks.md, docs/subscriptions.md): sent once the charge is final. */
export const SubscriptionCallbackSchema = z
  .object({
    subscriptionId: z.string(),
    transactionId: z.string().openapi({ description: "The charge" }),
    chargeDate: date("The day the charge was due"),
    amount: z.number().openapi({ description: "Major units, a JSON number" }),
    currency: CurrencySchema,
    transactionStatus: z.enum(["SUCCEED", "FAILED"]),
    declineCode: nullable(DeclineCodeSchema),
    declineReason: nullable(z.enum(DECLINE_CODES.map((d) => d.name) as [string, ...string[]])).openapi({
      description: "The decline code's name (fixtures/decline-codes.json)",
    }),
    failureCount: z.number().int().openapi({ description: "Consecutive failed charges, this one included" }),
    nextChargeDate: nullable(date("The next charge; null when none is planned (paused, ended)")),
    metadata: nullable(Metadata),
  })
  .openapi("SubscriptionCallback", { description: "The subscription callback of a scheduled charge (docs/webhooks.md)" });

export type SubscriptionCallback = z.infer<typeof SubscriptionCallbackSchema>;

export const UpdateSubscriptionRequestSchema = z
  .object({
    plan: z
      .object({
        amount: PlanSchema.shape.amount.optional(),
        currency: PlanSchema.shape.currency.optional(),
        frequency: PlanSchema.shape.frequency.optional(),
        interval: PlanSchema.shape.interval.optional(),
        startDate: date("Not before today; the next charge moves there").optional(),
        endDate: date("null removes it").nullable().optional(),
      })
      .optional(),
    status: z
      .enum([...SUBSCRIPTION_STATUSES, "CANCELLED"])
      .transform((v) => (v === "CANCELLED" ? "CANCELED" : v))
      .optional()
      .openapi({ description: "Allowed moves: see docs/subscriptions.md; CANCELLED is read as CANCELED" }),
  })
  .openapi("UpdateSubscriptionRequest");

export type UpdateSubscriptionRequest = z.infer<typeof UpdateSubscriptionRequestSchema>;
