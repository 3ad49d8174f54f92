/** `GET /_sandbox/coverage` (docs/coverage.md, docs/control-plane.md): the sandbox's coverage report. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../http/env.js";
import type { WebhookDispatcher } from "../webhooks/dispatcher.js";
import { coverageRoute } from "./coverage.routes.js";
import type { CoverageService } from "./coverage.service.js";

export function registerCoverage(
  app: OpenAPIHono<AppEnv>,
  of: Scoped<{ coverage: CoverageService; webhooks: Pick<WebhookDispatcher, "settled"> }>,
) {
  // the journal's read barrier (docs/webhooks.md): a webhook its receiver has just answered is
  // counted as delivered, not missing
  app.openapi(coverageRoute, async (c) => {
    await of(c).webhooks.settled();
    return c.json(of(c).coverage.report(), 200);
  });
}
