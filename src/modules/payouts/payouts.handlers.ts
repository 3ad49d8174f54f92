import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { gatewayRead } from "../../http/reads.js";
import { asStatus } from "../transactions/transitions.js";
import { createPayoutRoute, payoutInfoRoute, payoutStatusRoute } from "./payouts.routes.js";
import type { PayoutService } from "./payouts.service.js";

/** Card payouts: create, status and info (docs/refunds-payouts.md#card-payouts, docs/refunds-payouts.md), under /api/v1 and /v1. */
export function registerPayouts(app: OpenAPIHono<AppEnv>, of: Scoped<{ payouts: PayoutService }>) {
  gatewayRoute(app, createPayoutRoute, (c) => {
    const result = of(c).payouts.create(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });

  gatewayRead(app, payoutStatusRoute, (merchant, id, c) => {
    const row = of(c).payouts.getOwn(merchant, id);
    return { transactionId: row.id, transactionStatus: asStatus(row.status) };
  });

  gatewayRead(app, payoutInfoRoute, (merchant, id, c) => of(c).payouts.info(merchant, id));
}
