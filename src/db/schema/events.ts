import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The live event log of a sandbox (docs/events.md): one row per event, written in the same transaction
 * as the change it reports, read by `GET /_sandbox/events` listeners from here (so a reconnect, or a
 * restart, resumes exactly after the last id a client saw). `id` only grows: a new row takes the
 * largest id + 1, and the newest row is never deleted (retention keeps at least one, a reset keeps
 * this table), so an id is never reused. No AUTOINCREMENT, whose sqlite_sequence row would be one
 * more page written a commit (migration 0011). `data` is the event's
 * JSON as sent; `transactionId` and `merchant` (a mid) are kept apart for the stream's filters.
 * No secondary index: every insert is on a request's path, and listeners read forward by id.
 */
export const events = sqliteTable("events", {
  id: integer("id").primaryKey(),
  type: text("type").notNull(),
  transactionId: text("transaction_id"),
  merchant: text("merchant"),
  data: text("data").notNull(),
});
