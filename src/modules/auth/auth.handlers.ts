import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { authRoute } from "./auth.routes.js";
import type { AuthService } from "./auth.service.js";

export function registerAuth(app: OpenAPIHono<AppEnv>, of: Scoped<{ auth: AuthService }>) {
  gatewayRoute(app, authRoute, async (c) => {
    const { merchantKey, merchantSecret } = c.req.valid("json");
    return c.json(await of(c).auth.issue(merchantKey, merchantSecret), 200);
  });
}
