import { createRoute, z } from "@hono/zod-openapi";
import { ADMIN_SECURITY, errorResponses, jsonBody, jsonResponse } from "../http/schemas.js";

const tags = ["Sandbox control plane"];
const security = ADMIN_SECURITY;

export const HealthSchema = z.object({ status: z.literal("ok") }).openapi("Health");
export const ClockSchema = z.object({ now: z.string(), scale: z.number() }).openapi("Clock");
export const AdvanceRequestSchema = z
  .object({
    by: z.string().optional().openapi({ description: "ISO 8601 duration, e.g. P1D, PT30M, P3M", example: "P1D" }),
    to: z.string().optional().openapi({ description: "ISO 8601 instant to move to" }),
  })
  .openapi("ClockAdvanceRequest");
export const AdvanceResponseSchema = z
  .object({
    now: z.string(),
    ran: z.object({ ticks: z.number(), charges: z.number(), deliveries: z.number() }).catchall(z.number()),
  })
  .openapi("ClockAdvanceResponse");
export const ScenarioLoadedSchema = z
  .object({ name: z.string(), merchants: z.array(z.string()), cards: z.number(), rules: z.number() })
  .openapi("ScenarioLoaded");

export const ResetRequestSchema = z
  .object({
    startTime: z.string().optional().openapi({
      description: "ISO 8601 instant the clock restarts at (default: the start time)",
      example: "2026-01-15T12:00:00Z",
    }),
  })
  .openapi("ResetRequest");
/** A scenario as loaded (CONTRACT §4): card numbers masked, merchants without their secret. */
export const ScenarioSummarySchema = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    merchants: z.array(z.record(z.string(), z.unknown())),
    cards: z.array(z.record(z.string(), z.unknown())),
    rules: z.array(z.record(z.string(), z.unknown())),
    loadedAt: z.string(),
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
    200: jsonResponse(z.object({ status: z.literal("reset"), now: z.string() }), "Reset done"),
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
  summary: "Load a scenario document (CONTRACT §6) now: JSON, or YAML with Content-Type application/yaml",
  request: {
    body: {
      required: false,
      content: {
        "application/json": { schema: z.record(z.string(), z.unknown()).openapi("ScenarioDocument") },
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
