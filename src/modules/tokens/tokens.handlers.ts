import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { chargeRoute, tokenizeRoute } from "./tokens.routes.js";
import type { TokenService } from "./tokens.service.js";

export function registerTokens(app: OpenAPIHono<AppEnv>, of: Scoped<{ tokens: TokenService }>) {
  gatewayRoute(app, tokenizeRoute, (c) => {
    const result = of(c).tokens.tokenize(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });

  gatewayRoute(app, chargeRoute, (c) => {
    const result = of(c).tokens.charge(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });
}
