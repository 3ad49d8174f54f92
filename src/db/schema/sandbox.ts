import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Instance state that must survive restarts: the JWT secret, the virtual clock. */
export const sandboxState = sqliteTable("sandbox_state", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** Loaded scenario documents (docs/scenarios.md), kept whole; cards, rules and fxRates are read from here. */
export const scenarios = sqliteTable("scenarios", {
  name: text("name").primaryKey(),
  document: text("document", { mode: "json" }).notNull(),
  source: text("source").notNull(),
  loadedAt: integer("loaded_at").notNull(),
});
