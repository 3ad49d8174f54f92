/**
 * The query of the live event stream (docs/events.md), shared by its route (events.routes.ts) and
 * the dashboard's copy of the stream (src/dashboard/tools.handlers.tsx), which parses it itself.
 */
import { z } from "@hono/zod-openapi";
import { EVENT_TYPES } from "./event-log.js";

export const ID = /^\d{1,15}$/;

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
