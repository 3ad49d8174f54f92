import { createRoute } from "@hono/zod-openapi";
import { ADMIN_SECURITY, errorResponses, jsonResponse } from "../http/schemas.js";
import { CoverageReportSchema } from "./coverage.wire.js";

export const coverageRoute = createRoute({
  method: "get",
  path: "/_sandbox/coverage",
  operationId: "getCoverage",
  tags: ["Sandbox control plane"],
  security: ADMIN_SECURITY,
  summary: "Which payment behaviours happened in this sandbox since its last reset, and which never did",
  description:
    "Every behaviour of the catalogue (docs/coverage.md): declines by code, 3DS outcomes, refunds, payouts, APM methods and pages, subscription moves, webhook retries and chaos, idempotent replays and conflicts, error answers by kind. Each with how often it was seen, its first evidence, and a hint saying how to cause it; totals by area; the ids never seen. A copy (fork, loaded snapshot) starts with its source's.",
  responses: { 200: jsonResponse(CoverageReportSchema, "The coverage report"), ...errorResponses(401) },
});
