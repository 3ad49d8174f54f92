import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context.js";
import type { AppEnv } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { authRoute } from "./auth.routes.js";

export function registerAuth(app: OpenAPIHono<AppEnv>, ctx: AppContext) {
  gatewayRoute(app, authRoute, async (c) => {
    const { merchantKey, merchantSecret } = c.req.valid("json");
    return c.json(await ctx.auth.issue(merchantKey, merchantSecret), 200);
  });
}
