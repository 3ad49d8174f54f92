import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The live event log of a sandbox (docs/events.md): one row per event, written in the same transaction
 * as the change it reports, read by `GET /_sandbox/events` listeners from here (so a reconnect, or a
 * restart, resumes exactly after the last id a client saw). `id` only grows (AUTOINCREMENT: an id is
 * never reused, not after pruning nor after a reset, which keeps this table). `data` is the event's
 * JSON as sent; `transactionId` and `merchant` (a mid) are kept apart for the stream's filters.
 * No secondary index: every insert is on a request's path, and listeners read forward by id.
 */
export const events = sqliteTable("events", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  type: text("type").notNull(),
  transactionId: text("transaction_id"),
  merchant: text("merchant"),
  data: text("data").notNull(),
});
