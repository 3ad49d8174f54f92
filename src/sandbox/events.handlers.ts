import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { EventFilter, EventLog } from "../events/event-log.js";
import type { AppEnv } from "../http/env.js";
import { invalidField } from "../platform/errors.js";
import { type EventsQuery, eventsRoute } from "./events.routes.js";

/**
 * `GET /_sandbox/events` (CONTRACT §9), and the dashboard's own copy of it (src/sandbox/dashboard,
 * behind its session cookie: a browser's EventSource cannot send the admin token). Framing is Hono's
 * streamSSE; each write is awaited, so the next batch is read only once the client took this one.
 */
export function eventStream(c: Context, log: EventLog, query: EventsQuery, lastEventId: string | undefined): Response {
  if (lastEventId !== undefined && !/^\d{1,15}$/.test(lastEventId))
    throw invalidField("Last-Event-ID", "an event id (a whole number)");
  const given = lastEventId ?? query.since;
  const start = log.start(given === undefined ? undefined : Number(given));
  if ("gone" in start) {
    return c.json(
      {
        errorMessage: `Events after ${given} were pruned (SANDBOX_EVENTS_KEEP): the oldest kept is ${start.gone}`,
        oldestId: start.gone,
      },
      410,
    );
  }
  if ("ahead" in start) {
    throw invalidField(
      lastEventId !== undefined ? "Last-Event-ID" : "since",
      `no event ${given} here: the newest is ${start.ahead}`,
    );
  }
  const filter: EventFilter = {
    types: query.types === undefined ? undefined : new Set(query.types.split(",").map((t) => t.trim())),
    transactionId: query.transactionId,
    merchant: query.merchant,
  };
  return streamSSE(c, async (stream) => {
    const stop = new AbortController();
    stream.onAbort(() => stop.abort());
    for await (const batch of log.follow(start.after, filter, stop.signal)) {
      // nothing sent for a while: a comment keeps proxies and clients from timing the stream out
      if (batch.length === 0) await stream.write(": keep-alive\n\n");
      for (const e of batch) {
        if (stream.aborted) break;
        await stream.writeSSE({ id: String(e.id), event: e.type, data: e.data });
      }
    }
  });
}

export function registerEvents(app: OpenAPIHono<AppEnv>, ctx: { events: EventLog }) {
  app.openapi(eventsRoute, (c) => eventStream(c, ctx.events, c.req.valid("query"), c.req.valid("header")["last-event-id"]));
}
