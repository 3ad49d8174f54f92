import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One row per (merchant, operation, requestId): the first response, replayed for duplicates. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    merchantKey: text("merchant_key").notNull(),
    operation: text("operation").notNull(),
    requestId: text("request_id").notNull(),
    bodyHash: text("body_hash").notNull(),
    httpStatus: integer("http_status").notNull(),
    response: text("response").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.merchantKey, t.operation, t.requestId] })],
);
