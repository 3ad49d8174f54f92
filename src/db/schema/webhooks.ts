import { type SQL, sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A delivery's status in the journal (docs/webhooks.md); `skipped` is a copy's share of its source's pending ones (docs/snapshots.md). */
export const DELIVERY_STATUSES = ["pending", "delivered", "failed", "skipped"] as const;

/**
 * The transactional outbox (a state change and its webhook commit together) and the delivery journal in one: a row is written in
 * the same database transaction as the status change it reports; the dispatcher only reads it.
 * `seq` orders deliveries; `orderKey` (transaction or subscription id) keeps one resource's
 * deliveries in the order of its changes.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull().unique(),
    merchantKey: text("merchant_key").notNull(),
    kind: text("kind").notNull(),
    orderKey: text("order_key").notNull(),
    transactionId: text("transaction_id"),
    subscriptionId: text("subscription_id"),
    eventStatus: text("event_status").notNull(),
    url: text("url").notNull(),
    headers: text("headers", { mode: "json" }).$type<Record<string, string>>().notNull(),
    body: text("body").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull(),
    attemptCount: integer("attempt_count").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    /** Virtual ms an attempt started and has not yet been recorded; set across a crash. */
    inFlightSince: integer("in_flight_since"),
    replayOf: text("replay_of"),
    /** The chaos mode applied to this delivery (docs/webhooks.md#webhook-chaos), or null. */
    chaos: text("chaos"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  // Only a pending row that can go has a nextAttemptAt (the head of its orderKey, not in flight), so
  // the due index holds just those: a delivery enters it once and leaves it when claimed (keeps the index small).
  (t) => [
    index("webhook_due_idx").on(t.nextAttemptAt).where(sql`${t.nextAttemptAt} IS NOT NULL`),
    index("webhook_order_idx").on(t.orderKey, t.seq),
    // Only the deliveries whose orderKey is not their transaction (a subscription's charges, replays,
    // chaos's copies): a transaction's own deliveries are found by webhook_order_idx, so a payment's
    // delivery writes one index page fewer (docs/performance.md "The pages a payment writes").
    // Read through ofTransaction() below, which asks both.
    index("webhook_tx_idx").on(t.transactionId).where(sql`${t.transactionId} <> ${t.orderKey}`),
    index("webhook_sub_idx").on(t.subscriptionId).where(sql`${t.subscriptionId} IS NOT NULL`),
  ],
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey(),
    deliveryId: text("delivery_id").notNull(),
    n: integer("n").notNull(),
    at: integer("at").notNull(),
    httpStatus: integer("http_status"),
    error: text("error"),
    durationMs: integer("duration_ms"),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.n)],
);

/**
 * The deliveries of one transaction, as a condition that both of its indexes answer (SQLite's
 * MULTI-INDEX OR): those keyed by the transaction itself through webhook_order_idx, the others
 * (`transaction_id <> order_key`) through the partial webhook_tx_idx. Never `transaction_id = ?`
 * alone: no index holds every delivery by its transaction, so that would scan the table.
 */
export function ofTransaction(transactionId: string): SQL {
  const d = webhookDeliveries;
  return sql`((${d.orderKey} = ${transactionId} AND ${d.transactionId} = ${transactionId}) OR (${d.transactionId} = ${transactionId} AND ${d.transactionId} <> ${d.orderKey}))`;
}
