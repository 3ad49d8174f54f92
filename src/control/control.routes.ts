import { createRoute, z } from "@hono/zod-openapi";
import { ADMIN_SECURITY, errorResponses, jsonBody, jsonResponse } from "../http/schemas.js";
import { instant } from "../http/wire.js";
import { ScenarioDocumentSchema } from "../scenarios/scenario.schema.js";
import {
  AdvanceRequestSchema,
  AdvanceResponseSchema,
  ClockSchema,
  HealthSchema,
  ResetRequestSchema,
  ScenarioLoadedSchema,
  ScenarioSummarySchema,
} from "./control.wire.js";

const tags = ["Sandbox control plane"];
const security = ADMIN_SECURITY;

export const healthRoute = createRoute({
  operationId: "getHealth",
  method: "get",
  path: "/_sandbox/health",
  tags,
  // open even with SANDBOX_ADMIN_TOKEN set, so container health checks need no secret
  security: [],
  summary: "Ready once migrations and scenarios are loaded",
  responses: { 200: jsonResponse(HealthSchema, "Ready") },
});

export const resetRoute = createRoute({
  operationId: "resetSandbox",
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
  operationId: "getClock",
  method: "get",
  path: "/_sandbox/clock",
  tags,
  security,
  summary: "The virtual clock",
  responses: { 200: jsonResponse(ClockSchema, "Now and scale"), ...errorResponses(401) },
});

export const advanceRoute = createRoute({
  operationId: "advanceClock",
  method: "post",
  path: "/_sandbox/clock/advance",
  tags,
  security,
  summary: "Move virtual time forward, running everything due on the way",
  request: { body: jsonBody(AdvanceRequestSchema) },
  responses: { 200: jsonResponse(AdvanceResponseSchema, "Where the clock is now and what ran"), ...errorResponses(400, 401) },
});

export const loadScenarioRoute = createRoute({
  operationId: "loadScenario",
  method: "post",
  path: "/_sandbox/scenarios",
  tags,
  security,
  summary: "Load a scenario document (docs/scenarios.md) now: JSON, or YAML with Content-Type application/yaml",
  request: {
    body: {
      required: false,
      content: {
        "application/json": { schema: ScenarioDocumentSchema },
        "application/yaml": { schema: z.string() },
        "text/yaml": { schema: z.string() },
      },
    },
  },
  responses: { 200: jsonResponse(ScenarioLoadedSchema, "Loaded"), ...errorResponses(400, 401) },
});

export const listScenariosRoute = createRoute({
  operationId: "listScenarios",
  method: "get",
  path: "/_sandbox/scenarios",
  tags,
  security,
  summary: "The loaded scenarios, oldest first (card numbers masked)",
  responses: { 200: jsonResponse(z.array(ScenarioSummarySchema), "Loaded scenarios"), ...errorResponses(401) },
});
