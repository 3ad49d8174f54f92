import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * What was done in a sandbox, call by call, for `GET /_sandbox/recording` (docs/recording.md): one row per
 * gateway call, shopper page post and control-plane call that a steps file can replay, written in
 * the same commit as the call's own writes (so an acknowledged call is recorded, across a kill -9
 * too). Never a card number or CVV: `body` is the request body as src/recording/redact.ts leaves it
 * (numbers as their mask, CVVs as a marker). `response` is the answer's JSON when it is small
 * enough to take ids from (transactionId, cardToken...); `webhooksUpTo` the newest delivery `seq`
 * when the call ended, which places each delivery after the call that caused it. Emptied by a reset
 * (the recording is "since the last reset"); the newest SANDBOX_RECORDING_KEEP rows are kept.
 */
export const recordedCalls = sqliteTable("recorded_calls", {
  id: integer("id").primaryKey(),
  /** Virtual ms when the call started. */
  at: integer("at").notNull(),
  /** `request`, `advance` (a clock move), or a shopper page post: `threeDS`, `hpp`, `qr`. */
  kind: text("kind").notNull(),
  method: text("method").notNull(),
  /** Path and query under the sandbox's base. */
  path: text("path").notNull(),
  /** The merchant the call acted as (bearer token, report headers), when it had one. */
  merchantKey: text("merchant_key"),
  body: text("body"),
  status: integer("status").notNull(),
  response: text("response"),
  webhooksUpTo: integer("webhooks_up_to").notNull(),
});

export type RecordedCall = typeof recordedCalls.$inferSelect;
