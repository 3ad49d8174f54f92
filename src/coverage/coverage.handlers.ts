/** `GET /_sandbox/coverage` (docs/coverage.md, docs/control-plane.md): the sandbox's coverage report. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.js";
import { coverageRoute } from "./coverage.routes.js";
import type { CoverageService } from "./coverage.service.js";

export function registerCoverage(
  app: OpenAPIHono<AppEnv>,
  ctx: { coverage: CoverageService; webhooks: { settled(): Promise<void> } },
) {
  app.openapi(coverageRoute, async (c) => {
    // a webhook its receiver just answered counts: the journal's read barrier first (docs/webhooks.md#journal-and-replay)
    await ctx.webhooks.settled();
    return c.json(ctx.coverage.report(), 200);
  });
}
