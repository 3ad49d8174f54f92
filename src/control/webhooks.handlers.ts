import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../http/env.js";
import { openRoute } from "../http/route-use.js";
import type { WebhookDispatcher } from "../webhooks/dispatcher.js";
import type { JournalEntry, WebhookJournal } from "../webhooks/journal.js";
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
  of: Scoped<{ journal: WebhookJournal; webhooks: Pick<WebhookDispatcher, "settled"> }>,
) {
  // reads wait for the answers already read to be recorded (docs/webhooks.md)
  openRoute(app, webhookJournalRoute, async (c) => {
    await of(c).webhooks.settled();
    return c.json(of(c).journal.list(c.req.valid("query")).map(typed), 200);
  });

  openRoute(app, webhookDeliveryRoute, async (c) => {
    await of(c).webhooks.settled();
    return c.json(typed(of(c).journal.get(c.req.valid("param").id)), 200);
  });

  openRoute(app, webhookReplayRoute, (c) =>
    c.json(typed(of(c).journal.replay(c.req.valid("param").id, c.req.valid("json") ?? {})), 201),
  );
}
