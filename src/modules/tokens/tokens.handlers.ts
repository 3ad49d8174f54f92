import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { chargeRoute, tokenizeRoute } from "./tokens.routes.js";
import type { TokenService } from "./tokens.service.js";

export function registerTokens(app: OpenAPIHono<AppEnv>, ctx: { tokens: TokenService }) {
  gatewayRoute(app, tokenizeRoute, (c) => {
    const result = ctx.tokens.tokenize(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });

  gatewayRoute(app, chargeRoute, (c) => {
    const result = ctx.tokens.charge(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });
}
