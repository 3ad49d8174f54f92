import { createRoute, z } from "@hono/zod-openapi";
import { ADMIN_SECURITY, errorResponses } from "../http/schemas.js";
import { EVENT_TYPES } from "./event-log.js";

const ID = /^\d{1,15}$/;

/** `?types=a,b`: known event types, comma-separated. */
const typesList = z
  .string()
  .max(200)
  .refine((v) => v.split(",").every((t) => (EVENT_TYPES as readonly string[]).includes(t.trim())), {
    message: `a comma-separated list of ${EVENT_TYPES.join(", ")}`,
  });

export const EventsQuerySchema = z.strictObject({
  since: z
    .string()
    .regex(ID, "an event id (a whole number)")
    .optional()
    .openapi({ description: "Resume after this event id (as Last-Event-ID does; the header wins). 0: every event kept." }),
  types: typesList
    .optional()
    .openapi({ description: `Only these types: ${EVENT_TYPES.join(", ")}`, example: "transaction,webhook" }),
  transactionId: z.string().min(1).max(200).optional().openapi({ description: "Only the events of this transaction" }),
  merchant: z.string().min(1).max(200).optional().openapi({ description: "Only the events of this merchant (its mid)" }),
});
export type EventsQuery = z.infer<typeof EventsQuerySchema>;

export const EventsHeadersSchema = z.object({
  "last-event-id": z.string().regex(ID, "an event id (a whole number)").optional().openapi({
    description: "The id of the last event seen: the stream resumes right after it (EventSource sends it on reconnect)",
  }),
});

export const EventsGoneSchema = z
  .object({
    errorMessage: z.string(),
    oldestId: z
      .number()
      .int()
      .openapi({ description: "The oldest event id kept: resume with since=oldestId-1 (what is older is gone)" }),
  })
  .openapi("EventsGone");

const DESCRIPTION = `Server-Sent Events, one per change in this sandbox, from what its database holds (docs/events.md). Each event has an \`id\` that only grows, an \`event\` (its type) and JSON \`data\`:
- \`transaction\`: \`{transactionId, kind, merchant, status, declineCode, at}\` on every status change, creation included;
- \`webhook\`: \`{deliveryId, transactionId, url, attempt, httpStatus | error, chaos?, at}\` on every attempt;
- \`clock\`: \`{now, from}\` on every move (advance, reset);
- \`scenario\`: \`{name}\` on every load;
- \`reset\`: \`{}\`.
Without \`since\` or \`Last-Event-ID\` the stream starts with the next event. A comment (\`: keep-alive\`) is sent after 15 s (real time) without an event. Events beyond the retention (SANDBOX_EVENTS_KEEP, the newest 100,000 by default) are pruned; resuming before the oldest kept answers 410.`;

export const eventsRoute = createRoute({
  operationId: "streamEvents",
  method: "get",
  path: "/_sandbox/events",
  tags: ["Sandbox control plane"],
  security: ADMIN_SECURITY,
  summary: "Live events of this sandbox (text/event-stream), resumable with Last-Event-ID or ?since=",
  description: DESCRIPTION,
  request: { query: EventsQuerySchema, headers: EventsHeadersSchema },
  responses: {
    200: {
      description: "The stream (never ends by itself)",
      content: {
        "text/event-stream": {
          schema: z.string().openapi({
            example:
              'id: 42\nevent: transaction\ndata: {"transactionId":"tx_...","kind":"card_payment","merchant":"sandbox-mid-001","status":"SUCCEED","declineCode":null,"at":"2026-01-15T12:00:00.000Z"}\n\n',
          }),
        },
      },
    },
    ...errorResponses(400, 401),
    410: {
      description: "`since` (or Last-Event-ID) is older than the oldest event kept: events after it were pruned",
      content: { "application/json": { schema: EventsGoneSchema } },
    },
  },
});
