import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../context.js";
import type { AppEnv } from "../http/env.js";
import { completeTransactionRoute } from "./transactions.routes.js";

/** `POST /_sandbox/transactions/{id}/complete` (CONTRACT §4). */
export function registerTransactionsControl(app: OpenAPIHono<AppEnv>, ctx: AppContext) {
  app.openapi(completeTransactionRoute, (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(ctx.transactions.complete(id, body), 200);
  });
}
