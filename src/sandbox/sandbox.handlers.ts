import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../context.js";
import type { AppEnv } from "../http/env.js";
import { toIso } from "../platform/clock.js";
import { advanceRoute, clockRoute, healthRoute, loadScenarioRoute, resetRoute } from "./sandbox.routes.js";

export function registerSandbox(app: OpenAPIHono<AppEnv>, ctx: AppContext) {
  app.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));

  app.openapi(resetRoute, async (c) => {
    await ctx.control.reset();
    return c.json({ status: "reset" as const, now: toIso(ctx.clock.nowMs()) }, 200);
  });

  app.openapi(clockRoute, (c) => c.json({ now: toIso(ctx.clock.nowMs()), scale: ctx.clock.scale }, 200));

  app.openapi(advanceRoute, async (c) => c.json(await ctx.control.advance(c.req.valid("json"), c.req.raw.signal), 200));

  app.openapi(loadScenarioRoute, (c) => {
    const s = ctx.scenarios.load(c.req.valid("json"), "POST /_sandbox/scenarios");
    return c.json(
      { name: s.name, merchants: s.merchants.map((m) => m.merchantKey), cards: s.cards.length, rules: s.rules.length },
      200,
    );
  });
}
