import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The sandboxes beside the root one (docs/parallel-suites.md), kept by the root's database only (a sandbox's
 * own database has the table, empty). Times named `*_real` are real ms (TTL is real time); the
 * clock anchor says where the sandbox's virtual clock was at a real instant, so a closed sandbox's
 * time keeps running at the server's scale without its database being open.
 */
export const sandboxes = sqliteTable("sandboxes", {
  id: text("id").primaryKey(),
  name: text("name"),
  /** Where its clock starts and where reset puts it back (virtual ms). */
  startMs: integer("start_ms").notNull(),
  /** The scenario document it was created with (no `steps`), reloaded by its reset; null for none. */
  scenario: text("scenario", { mode: "json" }),
  ttlMs: integer("ttl_ms").notNull(),
  createdReal: integer("created_real").notNull(),
  lastUsedReal: integer("last_used_real").notNull(),
  /** Virtual ms of its clock at `clockReal`. */
  clockMs: integer("clock_ms").notNull(),
  clockReal: integer("clock_real").notNull(),
  /**
   * Real ms at which a closed sandbox has due work (a retry, a timeout, a charge) and must be
   * opened to run it; 0 while it is open (after a crash: open it at start to recover), null for none.
   */
  wakeReal: integer("wake_real"),
});
