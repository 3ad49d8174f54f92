import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import {
  cancelSubscriptionRoute,
  createSubscriptionRoute,
  getSubscriptionRoute,
  updateSubscriptionRoute,
} from "./subscriptions.routes.js";
import type { SubscriptionService } from "./subscriptions.service.js";

export function registerSubscriptions(app: OpenAPIHono<AppEnv>, ctx: { subscriptions: SubscriptionService }) {
  gatewayRoute(app, createSubscriptionRoute, (c) => {
    const result = ctx.subscriptions.create(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });

  gatewayRoute(app, getSubscriptionRoute, (c) =>
    c.json(ctx.subscriptions.get(c.get("merchant"), c.req.valid("param").subscriptionId), 200),
  );

  gatewayRoute(app, updateSubscriptionRoute, (c) => {
    const view = ctx.subscriptions.update(c.get("merchant"), c.req.valid("param").subscriptionId, c.req.valid("json"));
    return c.json(view, 200);
  });

  gatewayRoute(app, cancelSubscriptionRoute, (c) => {
    ctx.subscriptions.cancel(c.get("merchant"), c.req.valid("param").subscriptionId);
    return c.body(null, 204);
  });
}
