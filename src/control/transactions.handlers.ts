import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../http/env.js";
import { openRoute } from "../http/route-use.js";
import type { TransactionLifecycle } from "../modules/transactions/lifecycle.js";
import { completeTransactionRoute } from "./transactions.routes.js";

/** `POST /_sandbox/transactions/{id}/complete` (docs/control-plane.md). */
export function registerTransactionsControl(app: OpenAPIHono<AppEnv>, of: Scoped<{ transactions: TransactionLifecycle }>) {
  openRoute(app, completeTransactionRoute, (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(of(c).transactions.complete(id, body), 200);
  });
}
