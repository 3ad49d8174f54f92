import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { authRoute } from "./auth.routes.js";
import type { AuthService } from "./auth.service.js";

export function registerAuth(app: OpenAPIHono<AppEnv>, ctx: { auth: AuthService }) {
  gatewayRoute(app, authRoute, async (c) => {
    const { merchantKey, merchantSecret } = c.req.valid("json");
    return c.json(await ctx.auth.issue(merchantKey, merchantSecret), 200);
  });
}
