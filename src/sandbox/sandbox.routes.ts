import { createRoute, z } from "@hono/zod-openapi";
import { ADMIN_SECURITY, errorResponses, isoDuration, isoInstant, jsonBody, jsonResponse } from "../http/schemas.js";
import { instant } from "../http/wire.js";
import { scenarioSchema } from "../scenarios/scenario.schema.js";

const tags = ["Sandbox control plane"];
const security = ADMIN_SECURITY;

export const HealthSchema = z.object({ status: z.literal("ok") }).openapi("Health");
export const ClockSchema = z.object({ now: instant("Its virtual now"), scale: z.number() }).openapi("Clock");
/** How an advance names its target, for a 400's reason (the service's own checks say the same). */
export const BY_OR_TO = 'give by (a duration such as "PT3M") or to (an instant such as "2026-01-15T12:00:00Z")';

/** One of `by` and `to`, never both: refined here, and shown to the document as `oneOf` required. */
export const AdvanceRequestSchema = z
  .strictObject({
    by: isoDuration("How far to move: an ISO 8601 duration, e.g. PT3M, P1D, P1M, P3M", "P1D").optional(),
    to: isoInstant("The ISO 8601 instant to move to (not before now)").optional(),
  })
  .superRefine((body, ctx) => {
    if (body.by !== undefined && body.to !== undefined) {
      ctx.addIssue({ code: "custom", path: ["to"], message: `not allowed together with by: ${BY_OR_TO}, not both` });
    } else if (body.by === undefined && body.to === undefined) {
      ctx.addIssue({ code: "custom", path: ["by"], message: `required: ${BY_OR_TO}` });
    }
  })
  .openapi("ClockAdvanceRequest", { oneOf: [{ required: ["by"] }, { required: ["to"] }] });
export const AdvanceResponseSchema = z
  .object({
    now: instant("Its virtual now, after the advance"),
    ran: z.object({ ticks: z.number(), charges: z.number(), deliveries: z.number() }).catchall(z.number()),
  })
  .openapi("ClockAdvanceResponse");
export const ScenarioLoadedSchema = z
  .object({ name: z.string(), merchants: z.array(z.string()), cards: z.number(), rules: z.number() })
  .openapi("ScenarioLoaded");

export const ResetRequestSchema = z
  .strictObject({
    startTime: isoInstant("ISO 8601 instant the clock restarts at (default: the start time)").optional(),
  })
  .openapi("ResetRequest");
/** A scenario as loaded (docs/control-plane.md): card numbers masked, merchants without their secret. */
export const ScenarioSummarySchema = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    merchants: z.array(z.record(z.string(), z.unknown())),
    cards: z.array(z.record(z.string(), z.unknown())),
    rules: z.array(z.record(z.string(), z.unknown())),
    loadedAt: instant(),
  })
  .openapi("ScenarioSummary");

export const healthRoute = createRoute({
  method: "get",
  path: "/_sandbox/health",
  tags,
  // open even with SANDBOX_ADMIN_TOKEN set, so container health checks need no secret
  security: [],
  summary: "Ready once migrations and scenarios are loaded",
  responses: { 200: jsonResponse(HealthSchema, "Ready") },
});

export const resetRoute = createRoute({
  method: "post",
  path: "/_sandbox/reset",
  tags,
  security,
  summary:
    "Drop all transactions, tokens, subscriptions and deliveries; reload merchants and scenarios; clock to its start (or startTime)",
  request: { body: { required: false, content: { "application/json": { schema: ResetRequestSchema } } } },
  responses: {
    200: jsonResponse(z.object({ status: z.literal("reset"), now: instant("Its virtual now, after the reset") }), "Reset done"),
    ...errorResponses(400, 401),
  },
});

export const clockRoute = createRoute({
  method: "get",
  path: "/_sandbox/clock",
  tags,
  security,
  summary: "The virtual clock",
  responses: { 200: jsonResponse(ClockSchema, "Now and scale"), ...errorResponses(401) },
});

export const advanceRoute = createRoute({
  method: "post",
  path: "/_sandbox/clock/advance",
  tags,
  security,
  summary: "Move virtual time forward, running everything due on the way",
  request: { body: jsonBody(AdvanceRequestSchema) },
  responses: { 200: jsonResponse(AdvanceResponseSchema, "Where the clock is now and what ran"), ...errorResponses(400, 401) },
});

export const loadScenarioRoute = createRoute({
  method: "post",
  path: "/_sandbox/scenarios",
  tags,
  security,
  summary: "Load a scenario document (docs/scenarios.md) now: JSON, or YAML with Content-Type application/yaml",
  request: {
    body: {
      required: false,
      content: {
        "application/json": { schema: scenarioSchema.meta({ id: "ScenarioDocument" }) },
        "application/yaml": { schema: z.string() },
        "text/yaml": { schema: z.string() },
      },
    },
  },
  responses: { 200: jsonResponse(ScenarioLoadedSchema, "Loaded"), ...errorResponses(400, 401) },
});

export const listScenariosRoute = createRoute({
  method: "get",
  path: "/_sandbox/scenarios",
  tags,
  security,
  summary: "The loaded scenarios, oldest first (card numbers masked)",
  responses: { 200: jsonResponse(z.array(ScenarioSummarySchema), "Loaded scenarios"), ...errorResponses(401) },
});
