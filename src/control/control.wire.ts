/**
 * The control plane's bodies on the wire (health, clock, advance, reset, scenario summary): the
 * schemas that sandbox.routes.ts validates and documents with, and the advance's reason text, which
 * the control service repeats for callers in process.
 */
import { z } from "@hono/zod-openapi";
import { isoDuration, isoInstant } from "../http/schemas.js";
import { instant } from "../http/wire.js";
import { scenarioCardSchema, scenarioMerchantSchema, scenarioRuleSchema } from "../scenarios/scenario.schema.js";

export const HealthSchema = z.object({ status: z.literal("ok") }).openapi("Health");
export const ClockSchema = z.object({ now: instant("Its virtual now"), scale: z.number() }).openapi("Clock");
/** How an advance names its target, for a 400's reason (the service's own checks say the same). */
export const BY_OR_TO = 'give by (a duration such as "PT3M") or to (an instant such as "2026-01-15T12:00:00Z")';

const by = isoDuration("How far to move: an ISO 8601 duration, e.g. PT3M, P1D, P1M, P3M", "P1D");
const to = isoInstant(
  "The ISO 8601 instant to move to. Not before now: the clock never goes backwards, a rule that holds at run time (400 `Invalid field: to`)",
);

/**
 * One of `by` and `to`, never both: two closed objects, so that a generated client types the body as
 * `{by} | {to}` (docs/control-plane.md#advance).
 */
export const AdvanceRequestSchema = z
  .union([
    z.strictObject({ by }).openapi("ClockAdvanceBy", { description: "Move by a duration" }),
    z.strictObject({ to }).openapi("ClockAdvanceTo", { description: "Move to an instant" }),
  ])
  .openapi("ClockAdvanceRequest", { description: "by or to, not both" });

/**
 * The same rule as one object, for the words of a 400 only (the route's hook): a body the union
 * refuses is refused by this one too, with the field that is wrong and why.
 */
export const AdvanceRequestReasons = z.strictObject({ by: by.optional(), to: to.optional() }).superRefine((body, ctx) => {
  if (body.by !== undefined && body.to !== undefined) {
    ctx.addIssue({ code: "custom", path: ["to"], message: `not allowed together with by: ${BY_OR_TO}, not both` });
  } else if (body.by === undefined && body.to === undefined) {
    ctx.addIssue({ code: "custom", path: ["by"], message: `required: ${BY_OR_TO}` });
  }
});
export const AdvanceResponseSchema = z
  .object({
    now: instant("Its virtual now, after the advance"),
    ran: z
      .object({
        ticks: z.number().int().openapi({ description: "Scheduler ticks (every 5 virtual minutes) passed over" }),
        charges: z.number().int().openapi({ description: "Subscription charges made" }),
        deliveries: z.number().int().openapi({ description: "Webhook attempts made" }),
        completions: z.number().int().openapi({
          description:
            "Waiting transactions that reached their deadline (3DS timeouts, refunds and payouts settling, completeAfter)",
        }),
      })
      .openapi({ description: "What ran on the way" }),
  })
  .openapi("ClockAdvanceResponse");
export const ScenarioLoadedSchema = z
  .object({ name: z.string(), merchants: z.array(z.string()), cards: z.number(), rules: z.number() })
  .openapi("ScenarioLoaded");

export const ResetRequestSchema = z
  .strictObject({
    startTime: isoInstant("ISO 8601 instant the clock restarts at (default: the start time)").optional(),
    snapshot: z.boolean().optional().openapi({
      description:
        "true: a sandbox made from a snapshot or a fork goes back to that state and its clock to that now (docs/snapshots.md); any other resets as without it",
    }),
  })
  .openapi("ResetRequest");
const masked = () => z.string().openapi({ description: "Masked (BIN and last four digits)", example: "424242******4242" });
const { merchantSecret: _secret, ...MERCHANT } = scenarioMerchantSchema.shape;
/** A scenario's merchant as listed: without its secret. */
const LoadedMerchantSchema = z.object(MERCHANT).openapi("LoadedScenarioMerchant");
/** A scenario's card as listed: its number masked. */
const LoadedCardSchema = z.object({ ...scenarioCardSchema.shape, number: masked() }).openapi("LoadedScenarioCard");
/** A scenario's rule as listed: its card masked. */
const LoadedRuleSchema = z.object({ ...scenarioRuleSchema.shape, card: masked().optional() }).openapi("LoadedScenarioRule");

/** A scenario as loaded (docs/control-plane.md): card numbers masked, merchants without their secret. */
export const ScenarioSummarySchema = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    merchants: z.array(LoadedMerchantSchema),
    cards: z.array(LoadedCardSchema),
    rules: z.array(LoadedRuleSchema),
    loadedAt: instant(),
  })
  .openapi("ScenarioSummary");
