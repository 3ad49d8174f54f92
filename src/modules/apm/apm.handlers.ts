import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { gatewayRead } from "../../http/reads.js";
import { missingField } from "../../platform/errors.js";
import { asStatus } from "../transactions/transitions.js";
import { apmInfoRoute, apmPayoutInfoRoute, apmStatusRoute, createApmPaymentRoute, createApmPayoutRoute } from "./apm.routes.js";
import type { ApmService } from "./apm.service.js";

/** APM pay-ins and payouts: create, status and info (docs/apm.md, docs/apm.md#payouts), under /api/v1 and /v1. */
export function registerApm(app: OpenAPIHono<AppEnv>, of: Scoped<{ apm: ApmService }>) {
  gatewayRoute(app, createApmPaymentRoute, (c) => {
    const result = of(c).apm.createPayment(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });

  gatewayRead(app, apmStatusRoute, (merchant, id, c) => {
    const row = of(c).apm.getOwnPayment(merchant, id);
    return { transactionId: row.id, transactionStatus: asStatus(row.status) };
  });

  gatewayRead(app, apmInfoRoute, (merchant, id, c) => of(c).apm.paymentInfo(merchant, id));

  gatewayRoute(app, createApmPayoutRoute, (c) => {
    if (!c.req.valid("header").referer) throw missingField("Referer");
    const result = of(c).apm.createPayout(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });

  gatewayRead(app, apmPayoutInfoRoute, (merchant, id, c) => of(c).apm.payoutInfo(merchant, id));
}
