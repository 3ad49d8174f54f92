import { and, asc, eq, isNotNull, lte, min, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { preparedInsert } from "../../db/insert.js";
import { lazy } from "../../db/lazy.js";
import { transactions } from "../../db/schema/index.js";

export type TransactionRow = typeof transactions.$inferSelect;

const t = transactions;
const ph = (name: string) => sql.placeholder(name);

export interface StatusSet {
  status: string;
  declineCode: number | null;
  updatedAt: number;
}

export interface DueSet {
  dueAt: number | null;
  dueStatus: string | null;
  dueDeclineCode: number | null;
}

/** Sums of a payment's refunds that are not FAILED (order and processed currency, minor units). */
export interface RefundTotals {
  orderAmount: number;
  processedAmount: number;
}

/** The one repo over the transactions table, every kind. Prepared once: the create paths run these per request. */
export class TransactionsRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly setStatusStmt;
  private readonly setDueStmt;
  private readonly setDetailsStmt;
  private readonly nextDueStmt;
  private readonly dueStmt;
  private readonly refundTotalsStmt;
  private readonly succeededRefundsStmt;

  constructor(db: Db) {
    this.insertStmt = preparedInsert(db.$client, t);
    this.byIdStmt = lazy(() =>
      db
        .select()
        .from(t)
        .where(eq(t.id, ph("id")))
        .prepare(),
    );
    this.setStatusStmt = lazy(() =>
      db
        .update(t)
        .set({
          status: sql`${ph("status")}`,
          declineCode: sql`${ph("declineCode")}`,
          dueAt: sql`${ph("dueAt")}`,
          dueStatus: sql`${ph("dueStatus")}`,
          dueDeclineCode: sql`${ph("dueDeclineCode")}`,
          updatedAt: sql`${ph("updatedAt")}`,
        })
        .where(eq(t.id, ph("id")))
        .prepare(),
    );
    this.setDueStmt = lazy(() =>
      db
        .update(t)
        .set({ dueAt: sql`${ph("dueAt")}`, dueStatus: sql`${ph("dueStatus")}`, dueDeclineCode: sql`${ph("dueDeclineCode")}` })
        .where(eq(t.id, ph("id")))
        .prepare(),
    );
    this.setDetailsStmt = lazy(() =>
      db
        .update(t)
        .set({ details: sql`${ph("details")}` })
        .where(eq(t.id, ph("id")))
        .prepare(),
    );
    this.nextDueStmt = lazy(() =>
      db
        .select({ at: min(t.dueAt) })
        .from(t)
        .where(isNotNull(t.dueAt))
        .prepare(),
    );
    this.dueStmt = lazy(() =>
      db
        .select()
        .from(t)
        .where(lte(t.dueAt, ph("now")))
        .orderBy(asc(t.dueAt), asc(t.createdAt))
        .limit(ph("limit"))
        .prepare(),
    );
    this.refundTotalsStmt = lazy(() =>
      db
        .select({
          orderAmount: sql<number>`coalesce(sum(${t.orderAmount}), 0)`,
          processedAmount: sql<number>`coalesce(sum(${t.processedAmount}), 0)`,
        })
        .from(t)
        .where(and(eq(t.parentId, ph("parentId")), eq(t.kind, "refund"), ne(t.status, "FAILED")))
        .prepare(),
    );
    this.succeededRefundsStmt = lazy(() =>
      db
        .select({
          orderAmount: sql<number>`coalesce(sum(${t.orderAmount}), 0)`,
          processedAmount: sql<number>`coalesce(sum(${t.processedAmount}), 0)`,
        })
        .from(t)
        .where(and(eq(t.parentId, ph("parentId")), eq(t.kind, "refund"), eq(t.status, "SUCCEED")))
        .prepare(),
    );
  }

  insert(row: TransactionRow): void {
    this.insertStmt(row);
  }

  byId(id: string): TransactionRow | undefined {
    return this.byIdStmt.get({ id });
  }

  /** A new status, and the deadline that now applies (none for a final status). */
  setStatus(id: string, set: StatusSet & DueSet): void {
    this.setStatusStmt.run({ id, ...set });
  }

  setDue(id: string, due: DueSet): void {
    this.setDueStmt.run({ id, ...due });
  }

  setDetails(id: string, details: Record<string, unknown>): void {
    this.setDetailsStmt.run({ id, details: JSON.stringify(details) });
  }

  nextDueAt(): number | undefined {
    return this.nextDueStmt.get()?.at ?? undefined;
  }

  dueBy(now: number, limit: number): TransactionRow[] {
    return this.dueStmt.all({ now, limit });
  }

  /** The refunds of a payment that are not FAILED, or only the SUCCEED ones. */
  refundTotals(parentId: string, only: "not-failed" | "SUCCEED" = "not-failed"): RefundTotals {
    const stmt = only === "SUCCEED" ? this.succeededRefundsStmt : this.refundTotalsStmt;
    return stmt.get({ parentId }) ?? { orderAmount: 0, processedAmount: 0 };
  }
}
