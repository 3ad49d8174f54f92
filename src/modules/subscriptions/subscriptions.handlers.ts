import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import {
  cancelSubscriptionRoute,
  createSubscriptionRoute,
  getSubscriptionRoute,
  updateSubscriptionRoute,
} from "./subscriptions.routes.js";
import type { SubscriptionService } from "./subscriptions.service.js";

export function registerSubscriptions(app: OpenAPIHono<AppEnv>, of: Scoped<{ subscriptions: SubscriptionService }>) {
  gatewayRoute(app, createSubscriptionRoute, (c) => {
    const result = of(c).subscriptions.create(c.get("merchant"), c.req.valid("json"));
    return c.json(result.body, 200);
  });

  gatewayRoute(app, getSubscriptionRoute, (c) =>
    c.json(of(c).subscriptions.get(c.get("merchant"), c.req.valid("param").subscriptionId), 200),
  );

  gatewayRoute(app, updateSubscriptionRoute, (c) => {
    const view = of(c).subscriptions.update(c.get("merchant"), c.req.valid("param").subscriptionId, c.req.valid("json"));
    return c.json(view, 200);
  });

  gatewayRoute(app, cancelSubscriptionRoute, (c) => {
    of(c).subscriptions.cancel(c.get("merchant"), c.req.valid("param").subscriptionId);
    return c.body(null, 204);
  });
}
