import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.js";
import { openRoute } from "../http/route-use.js";
import type { WebhookDispatcher } from "./dispatcher.js";
import type { WebhookJournal } from "./journal.js";
import { webhookDeliveryRoute, webhookJournalRoute, webhookReplayRoute } from "./webhooks.routes.js";

export function registerWebhooks(
  app: OpenAPIHono<AppEnv>,
  ctx: { journal: WebhookJournal; webhooks: Pick<WebhookDispatcher, "settled"> },
) {
  // reads wait for the answers already read to be recorded (docs/webhooks.md)
  openRoute(app, webhookJournalRoute, async (c) => {
    await ctx.webhooks.settled();
    return c.json(ctx.journal.list(c.req.valid("query")), 200);
  });

  openRoute(app, webhookDeliveryRoute, async (c) => {
    await ctx.webhooks.settled();
    return c.json(ctx.journal.get(c.req.valid("param").id), 200);
  });

  openRoute(app, webhookReplayRoute, (c) => c.json(ctx.journal.replay(c.req.valid("param").id, c.req.valid("json") ?? {}), 201));
}
