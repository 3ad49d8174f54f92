import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { gatewayRead } from "../../http/reads.js";
import { asStatus } from "../transactions/transitions.js";
import { cardInfoRoute, cardStatusRoute, createCardPaymentRoute } from "./payments.routes.js";
import type { PaymentService } from "./payments.service.js";

/** Card payment create, status and info (docs/cards.md), under /api/v1 and /v1. */
export function registerPayments(app: OpenAPIHono<AppEnv>, of: Scoped<{ payments: PaymentService }>) {
  gatewayRoute(app, createCardPaymentRoute, (c) => {
    const result = of(c).payments.createCardPayment(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });

  gatewayRead(app, cardStatusRoute, (merchant, id, c) => {
    const row = of(c).payments.getOwn(merchant, id);
    return { transactionId: row.id, transactionStatus: asStatus(row.status) };
  });

  gatewayRead(app, cardInfoRoute, (merchant, id, c) => {
    const { payments } = of(c);
    return payments.info(payments.getOwn(merchant, id));
  });
}
