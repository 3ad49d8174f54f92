import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context.js";
import type { AppEnv } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { createPayoutRoute, type PayoutCreateResponse, payoutInfoRoute, payoutStatusRoute } from "./payouts.routes.js";

/** Card payouts: create, status and info (interface §4.9; CONTRACT §3), under /api/v1 and /v1. */
export function registerPayouts(app: OpenAPIHono<AppEnv>, ctx: AppContext) {
  gatewayRoute(app, createPayoutRoute, (c) => {
    const result = ctx.payouts.create(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body as PayoutCreateResponse, 200);
  });

  gatewayRoute(app, payoutStatusRoute, (c) => {
    const row = ctx.payouts.getOwn(c.get("merchant"), c.req.valid("param").id);
    return c.json({ transactionId: row.id, transactionStatus: row.status }, 200);
  });

  gatewayRoute(app, payoutInfoRoute, (c) => c.json(ctx.payouts.info(c.get("merchant"), c.req.valid("param").id), 200));
}
