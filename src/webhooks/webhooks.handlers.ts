import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.js";
import type { WebhookDispatcher } from "./dispatcher.js";
import type { WebhookJournal } from "./journal.js";
import { webhookDeliveryRoute, webhookJournalRoute, webhookReplayRoute } from "./webhooks.routes.js";

export function registerWebhooks(
  app: OpenAPIHono<AppEnv>,
  ctx: { journal: WebhookJournal; webhooks: Pick<WebhookDispatcher, "settled"> },
) {
  // reads wait for the answers already read to be recorded (docs/webhooks.md)
  app.openapi(webhookJournalRoute, async (c) => {
    await ctx.webhooks.settled();
    return c.json(ctx.journal.list(c.req.valid("query")), 200);
  });

  app.openapi(webhookDeliveryRoute, async (c) => {
    await ctx.webhooks.settled();
    return c.json(ctx.journal.get(c.req.valid("param").id), 200);
  });

  app.openapi(webhookReplayRoute, (c) => c.json(ctx.journal.replay(c.req.valid("param").id, c.req.valid("json") ?? {}), 201));
}
