import { and, asc, gt, lte, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { preparedInsert } from "../db/insert.js";
import { lazy } from "../db/lazy.js";
import { events } from "../db/schema/index.js";
import { sqlName as q } from "../db/select.js";

export type StoredEvent = typeof events.$inferSelect;
export type NewEvent = Omit<StoredEvent, "id">;

const ph = (name: string) => sql.placeholder(name);
const e = events;

export class EventsRepo {
  private readonly add;
  private readonly maxStmt;
  private readonly minStmt;
  private readonly afterStmt;
  private readonly pruneStmt;

  constructor(db: Db) {
    this.add = preparedInsert(db.$client, e);
    // every COMMIT asks it (a commit listener, event-writer.ts): plain SQL
    this.maxStmt = lazy(() => db.$client.prepare(`SELECT max(${q(e.id)}) FROM ${q(e)}`).pluck(true));
    this.minStmt = lazy(() => db.$client.prepare(`SELECT min(${q(e.id)}) FROM ${q(e)}`).pluck(true));
    this.afterStmt = lazy(() =>
      db
        .select()
        .from(e)
        .where(and(gt(e.id, ph("after")), lte(e.id, ph("upTo"))))
        .orderBy(asc(e.id))
        .limit(ph("limit"))
        .prepare(),
    );
    this.pruneStmt = lazy(() =>
      db
        .delete(e)
        .where(and(gt(e.id, ph("after")), lte(e.id, ph("upTo"))))
        .prepare(),
    );
  }

  insert(row: NewEvent): void {
    this.add(row as StoredEvent);
  }

  /** The newest id, 0 when there is none. */
  newest(): number {
    return (this.maxStmt.get() as number | null) ?? 0;
  }

  /** The oldest id kept, or undefined when there is none. */
  oldest(): number | undefined {
    return (this.minStmt.get() as number | null) ?? undefined;
  }

  /** Events with `after < id <= upTo`, oldest first, at most `limit`. */
  after(after: number, upTo: number, limit: number): StoredEvent[] {
    return this.afterStmt.all({ after, upTo, limit });
  }

  /** Deletes the events with `after < id <= upTo` (retention). */
  prune(after: number, upTo: number): void {
    this.pruneStmt.run({ after, upTo });
  }
}
