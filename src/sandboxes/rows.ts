/**
 * The registry's rows in the root's database (docs/parallel-suites.md): one per file-backed sandbox (its
 * name, TTL, last use, and the anchor its clock runs from while it is closed), and the heartbeat that
 * says how far the clocks ran before the server stopped. A restart (a crash included) reads them
 * back. A memory-backed sandbox has no row there: nothing of it outlives the process
 * (docs/parallel-suites.md#storage).
 */
import { eq } from "drizzle-orm";
import { type Db, inBatch, inTransaction } from "../db/client.js";
import { preparedInsert } from "../db/insert.js";
import { sandboxes, sandboxState } from "../db/schema/index.js";

export type Row = typeof sandboxes.$inferSelect;

/** A row and where its sandbox lives: only a file-backed one's is written. */
type Placed = Row & { storage?: "file" | "memory" };

const kept = (row: Placed) => row.storage !== "memory";

const HEARTBEAT_KEY = "sandboxes_heartbeat_real";

export class RowStore {
  private readonly add: (row: Row) => unknown;

  constructor(private readonly db: Db) {
    this.add = preparedInsert(db.$client, sandboxes);
  }

  insert(row: Placed): void {
    if (!kept(row)) return;
    inBatch(this.db, () => this.add(row));
  }

  delete(row: Placed): void {
    if (!kept(row)) return;
    const id = row.id;
    this.db.delete(sandboxes).where(eq(sandboxes.id, id)).run();
  }

  /** Open: if the process dies now, the next start opens it to recover what it had in flight. */
  markOpen(row: Placed): void {
    if (row.wakeReal === 0) return;
    if (!kept(row)) {
      row.wakeReal = 0;
      return;
    }
    row.wakeReal = 0;
    this.db.update(sandboxes).set({ wakeReal: 0 }).where(eq(sandboxes.id, row.id)).run();
  }

  /** Closed: where its clock was, when its work falls due, when it was last used. */
  saveAnchor(row: Placed): void {
    if (!kept(row)) return;
    this.db
      .update(sandboxes)
      .set({ clockMs: row.clockMs, clockReal: row.clockReal, wakeReal: row.wakeReal, lastUsedReal: row.lastUsedReal })
      .where(eq(sandboxes.id, row.id))
      .run();
  }

  /** The last use of each of `rows`, and the heartbeat at `now`. */
  flush(rows: Iterable<Placed>, now: number): void {
    const db = this.db;
    if (!db.$client.open) return;
    inTransaction(db, () => {
      for (const row of rows)
        if (kept(row)) db.update(sandboxes).set({ lastUsedReal: row.lastUsedReal }).where(eq(sandboxes.id, row.id)).run();
      const value = String(now);
      db.insert(sandboxState)
        .values({ key: HEARTBEAT_KEY, value })
        .onConflictDoUpdate({ target: sandboxState.key, set: { value } })
        .run();
    });
  }

  /**
   * At start: the rows of the sandboxes that outlived the last run. Their clocks stopped when the
   * server did (the last heartbeat), as the root's does; one that was open then (a crash) or had work
   * due is opened by the first tick, to recover and run it.
   */
  recover(now: number, scale: number): Array<Row & { storage: "file" }> {
    const db = this.db;
    const hb = db.select().from(sandboxState).where(eq(sandboxState.key, HEARTBEAT_KEY)).get();
    const stoppedAt = hb ? Number(hb.value) : undefined;
    const rows = db.select().from(sandboxes).all();
    inTransaction(db, () => {
      for (const row of rows) {
        const ranUntil = stoppedAt === undefined ? row.clockReal : Math.max(row.clockReal, stoppedAt);
        row.clockMs += Math.max(0, scale * (ranUntil - row.clockReal));
        row.clockReal = now;
        if (row.wakeReal !== null) row.wakeReal = now;
        // the downtime does not count against its TTL: nothing could use it then
        if (stoppedAt !== undefined) row.lastUsedReal += Math.max(0, now - stoppedAt);
        this.saveAnchor(row);
      }
    });
    return rows.map((row) => ({ ...row, storage: "file" as const }));
  }
}
