import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.js";
import type { WebhookDispatcher } from "./dispatcher.js";
import type { JournalEntry, WebhookJournal } from "./journal.js";
import {
  type WebhookDeliveryResponse,
  webhookDeliveryRoute,
  webhookJournalRoute,
  webhookReplayRoute,
} from "./webhooks.routes.js";

/**
 * A journal entry as the document types it: its `kind` is a row of the signer table and its body the
 * JSON that kind's presenter wrote, typed by the same schema (callbacks.routes.ts), read back from the database.
 */
const typed = (entry: JournalEntry) => entry as WebhookDeliveryResponse;

export function registerWebhooks(
  app: OpenAPIHono<AppEnv>,
  ctx: { journal: WebhookJournal; webhooks: Pick<WebhookDispatcher, "settled"> },
) {
  // reads wait for the answers already read to be recorded (docs/webhooks.md)
  app.openapi(webhookJournalRoute, async (c) => {
    await ctx.webhooks.settled();
    return c.json(ctx.journal.list(c.req.valid("query")).map(typed), 200);
  });

  app.openapi(webhookDeliveryRoute, async (c) => {
    await ctx.webhooks.settled();
    return c.json(typed(ctx.journal.get(c.req.valid("param").id)), 200);
  });

  app.openapi(webhookReplayRoute, (c) =>
    c.json(typed(ctx.journal.replay(c.req.valid("param").id, c.req.valid("json") ?? {})), 201),
  );
}
