import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type SSEMessage, SSEStreamingApi, streamSSE } from "hono/streaming";
import type { AppEnv, Scoped } from "../http/env.js";
import { invalidField } from "../platform/errors.js";
import type { EventFilter, EventLog, StoredEvent } from "./event-log.js";
import { type EventsQuery, eventsRoute } from "./events.routes.js";

/**
 * `GET /_sandbox/events` (docs/events.md), and the dashboard's own copy of it (src/dashboard,
 * behind its session cookie: a browser's EventSource cannot send the admin token). Streaming is
 * Hono's streamSSE and each event's framing its `writeSSE`; a batch goes out as one write, awaited,
 * so the next batch is read only once the client took this one (backpressure).
 *
 * Cost per listener (many listeners must cost the request path nothing measurable): the
 * listeners near the head of the log read the same row objects (EventLog keeps the newest rows read),
 * so each row is framed once for all of them (FRAMES); a listener then costs one write per batch.
 */

/**
 * Each event's SSE frame, made once: listeners share the row objects of a read (EventLog). While it
 * is being made (Hono's writeSSE is async) the promise stands in, so listeners woken together wait
 * for the one framing instead of each making its own.
 */
const FRAMES = new WeakMap<StoredEvent, string | Promise<string>>();

/** Hono's own framing (SSEStreamingApi.writeSSE), written into a string instead of the stream. */
const writeSSE = SSEStreamingApi.prototype.writeSSE;
function frameOf(e: StoredEvent): string | Promise<string> {
  const known = FRAMES.get(e);
  if (known !== undefined) return known;
  let out = "";
  const sink = {
    write: async (chunk: string) => {
      out += chunk;
    },
  };
  const message: SSEMessage = { id: String(e.id), event: e.type, data: e.data };
  const made = writeSSE.call(sink as unknown as SSEStreamingApi, message).then(() => {
    FRAMES.set(e, out);
    return out;
  });
  FRAMES.set(e, made);
  return made;
}

export async function eventStream(
  c: Context,
  log: EventLog,
  query: EventsQuery,
  lastEventId: string | undefined,
): Promise<Response> {
  if (lastEventId !== undefined && !/^\d{1,15}$/.test(lastEventId))
    throw invalidField("Last-Event-ID", "an event id (a whole number)");
  const given = lastEventId ?? query.since;
  const start = await log.start(given === undefined ? undefined : Number(given));
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
      else if (!stream.aborted) {
        let text = "";
        for (const e of batch) {
          const frame = frameOf(e);
          text += typeof frame === "string" ? frame : await frame;
        }
        await stream.write(text);
      }
    }
  });
}

export function registerEvents(app: OpenAPIHono<AppEnv>, of: Scoped<{ events: EventLog }>) {
  app.openapi(eventsRoute, (c) => eventStream(c, of(c).events, c.req.valid("query"), c.req.valid("header")["last-event-id"]));
}
