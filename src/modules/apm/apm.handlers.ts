import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context.js";
import type { AppEnv } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { missingField } from "../../platform/errors.js";
import {
  type ApmCreateResponseBody,
  type ApmInfoResponse,
  apmInfoRoute,
  apmPayoutInfoRoute,
  apmStatusRoute,
  createApmPaymentRoute,
  createApmPayoutRoute,
} from "./apm.routes.js";

/** APM pay-ins and payouts: create, status and info (interface §4.11, §4.12; CONTRACT §3), under /api/v1 and /v1. */
export function registerApm(app: OpenAPIHono<AppEnv>, ctx: AppContext) {
  gatewayRoute(app, createApmPaymentRoute, (c) => {
    const result = ctx.apm.createPayment(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body as ApmCreateResponseBody, 200);
  });

  gatewayRoute(app, apmStatusRoute, (c) => {
    const row = ctx.apm.getOwnPayment(c.get("merchant"), c.req.valid("param").id);
    return c.json({ transactionId: row.id, transactionStatus: row.status }, 200);
  });

  gatewayRoute(app, apmInfoRoute, (c) =>
    c.json(ctx.apm.paymentInfo(c.get("merchant"), c.req.valid("param").id) as ApmInfoResponse, 200),
  );

  gatewayRoute(app, createApmPayoutRoute, (c) => {
    if (!c.req.valid("header").referer) throw missingField("Referer");
    const result = ctx.apm.createPayout(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body as ApmCreateResponseBody, 200);
  });

  gatewayRoute(app, apmPayoutInfoRoute, (c) =>
    c.json(ctx.apm.payoutInfo(c.get("merchant"), c.req.valid("param").id) as ApmInfoResponse, 200),
  );
}
