import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Payment-behaviour coverage (docs/coverage.md): one row per behaviour of the catalogue seen in this
 * sandbox since its last reset, with how many times and its first evidence. Written by the fold of the
 * event log (src/coverage/fold.ts, after commit, never on a request's path) and by the few places
 * that note a behaviour nothing else records (a subscription's move, an error answer, a replay).
 * Emptied by a reset; a copy (fork, loaded snapshot) starts with its source's rows.
 */
export const coverageSeen = sqliteTable("coverage_seen", {
  behaviour: text("behaviour").primaryKey(),
  count: integer("count").notNull(),
  /** Virtual ms of the first time it was seen. */
  firstAt: integer("first_at").notNull(),
  /** The first evidence: the transaction, subscription or webhook delivery it was seen on, or the call (`POST /api/v1/...`). */
  transactionId: text("transaction_id"),
  subscriptionId: text("subscription_id"),
  deliveryId: text("delivery_id"),
  request: text("request"),
});

export type CoverageSeenRow = typeof coverageSeen.$inferSelect;
