import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { gatewayRead } from "../../http/reads.js";
import { asStatus } from "../transactions/transitions.js";
import { createRefundRoute, refundInfoRoute, refundStatusRoute } from "./refunds.routes.js";
import type { RefundService } from "./refunds.service.js";

/** Card refunds: create, status and info (docs/refunds-payouts.md#refunds, docs/refunds-payouts.md), under /api/v1 and /v1. */
export function registerRefunds(app: OpenAPIHono<AppEnv>, of: Scoped<{ refunds: RefundService }>) {
  gatewayRoute(app, createRefundRoute, (c) => {
    const result = of(c).refunds.create(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });

  gatewayRead(app, refundStatusRoute, (merchant, id, c) => {
    const row = of(c).refunds.getOwn(merchant, id);
    return { refundId: row.id, transactionId: row.parentId ?? "", transactionStatus: asStatus(row.status) };
  });

  gatewayRead(app, refundInfoRoute, (merchant, id, c) => of(c).refunds.info(merchant, id));
}
