/**
 * What every dashboard page offers whatever it shows (docs/dashboard.md): the clock's advance
 * form, the recording to download, and the stream of live events the pages update from.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { eventStream } from "../events/events.handlers.js";
import { EventsQuerySchema } from "../events/events.routes.js";
import type { AppEnv } from "../http/env.js";
import { invalidField, missingField } from "../platform/errors.js";
import { recordingFile, recordingYaml } from "../recording/recording.handlers.js";
import { localPath } from "./access.js";
import type { dashboardActions } from "./actions.js";
import type { DashboardDeps } from "./deps.js";
import type { PageKit } from "./page-kit.js";
import { readForm } from "./page-response.js";

export function registerTools(
  app: OpenAPIHono<AppEnv>,
  ctx: DashboardDeps,
  kit: PageKit,
  actions: ReturnType<typeof dashboardActions>,
) {
  app.post("/dashboard/clock/advance", async (c) => {
    const form = await readForm(c);
    return kit.act(c, localPath(form.back), async () => {
      const by = form.by?.trim();
      if (!by) throw missingField("by");
      const r = await actions.advance(by);
      return `Clock advanced by ${by} to ${r.now}: ${r.ran.ticks} scheduler ticks, ${r.ran.charges} charges, ${r.ran.deliveries} webhook attempts.`;
    });
  });

  // the session as a steps file to download (GET /_sandbox/recording behind the dashboard's session)
  app.get("/dashboard/recording", (c) => {
    c.header("Content-Disposition", 'attachment; filename="recording.yaml"');
    c.header("Cache-Control", "no-store");
    return c.body(recordingYaml(recordingFile(ctx)), 200, { "content-type": "application/yaml; charset=utf-8" });
  });

  // the pages' live updates: the stream of /_sandbox/events, behind the dashboard's session (an
  // EventSource cannot send the admin token)
  app.get("/dashboard/events", (c) => {
    const query = EventsQuerySchema.safeParse(c.req.query());
    if (!query.success) throw invalidField(String(query.error.issues[0]?.path[0] ?? "query"));
    return eventStream(c, ctx.events, query.data, c.req.header("last-event-id"));
  });
}
