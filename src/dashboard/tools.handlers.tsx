/**
 * What every dashboard page offers whatever it shows (docs/dashboard.md): the clock's advance
 * form, the recording and the snapshot to download, Fork (docs/snapshots.md), and the stream of
 * live events the pages update from.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { eventStream } from "../events/events.handlers.js";
import { EventsQuerySchema } from "../events/events.wire.js";
import type { AppEnv } from "../http/env.js";
import { toIso } from "../platform/clock.js";
import { invalidField, missingField, notFound } from "../platform/errors.js";
import { recordingFile, recordingYaml } from "../recording/recording.handlers.js";
import { snapshotOf } from "../snapshots/images.js";
import { SNAPSHOT_TYPE } from "../snapshots/snapshot-file.js";
import { localPath } from "./access.js";
import { setFlash } from "./flash.js";
import type { PageKit } from "./page-kit.js";
import { readForm } from "./page-response.js";

export function registerTools(app: OpenAPIHono<AppEnv>, kit: PageKit) {
  app.post("/dashboard/clock/advance", async (c) => {
    const { actions } = kit.scope(c);
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
    return c.body(recordingYaml(recordingFile(kit.scope(c).ctx)), 200, { "content-type": "application/yaml; charset=utf-8" });
  });

  // the sandbox's whole state as a file (GET /_sandbox/snapshot behind the dashboard's session, docs/snapshots.md)
  app.get("/dashboard/snapshot", async (c) => {
    const { ctx } = kit.scope(c);
    const { file, nowMs, source } = await snapshotOf(ctx, ctx.config.db);
    const stamp = toIso(nowMs).replace(/[:.]/g, "-");
    c.header("Content-Disposition", `attachment; filename="${source}-${stamp}.paysandbox"`);
    c.header("Cache-Control", "no-store");
    return c.body(new Uint8Array(file.buffer as ArrayBuffer, file.byteOffset, file.byteLength), 200, {
      "content-type": SNAPSHOT_TYPE,
    });
  });

  // Fork: a new sandbox, a copy of this one now (docs/snapshots.md); the browser lands on the copy's
  // dashboard, at the path of its baseUrl on the host the browser used (the public URL may name another)
  app.post("/dashboard/fork", async (c) => {
    const { ctx } = kit.scope(c);
    const form = await readForm(c);
    const fork = ctx.fork;
    if (!fork)
      return kit.act(c, localPath(form.back), () => Promise.reject(notFound("Fork: this sandbox is not part of a server")));
    let copy: { id: string; baseUrl: string };
    try {
      copy = await fork();
    } catch (err) {
      return kit.act(c, localPath(form.back), () => Promise.reject(err));
    }
    setFlash(c, {
      kind: "ok",
      text: `Forked ${ctx.lineage.source} as ${copy.id}: this is the copy, its clock at the source's now.`,
    });
    return c.redirect(new URL(`${new URL(copy.baseUrl).pathname}/`, c.req.url).href, 303);
  });

  // the pages' live updates: the stream of /_sandbox/events, behind the dashboard's session (an
  // EventSource cannot send the admin token)
  app.get("/dashboard/events", (c) => {
    const query = EventsQuerySchema.safeParse(c.req.query());
    if (!query.success) throw invalidField(String(query.error.issues[0]?.path[0] ?? "query"));
    return eventStream(c, kit.scope(c).ctx.events, query.data, c.req.header("last-event-id"));
  });
}
