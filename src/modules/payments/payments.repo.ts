import { and, asc, eq, getTableColumns, inArray, isNotNull, lte, min, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { transactions } from "../../db/schema/index.js";

export type TransactionRow = typeof transactions.$inferSelect;
export type NewTransactionRow = typeof transactions.$inferInsert;

/** Transaction kinds this module owns (card payments, one-click and subscription charges). */
export const CARD_KINDS = ["card_payment", "card_charge", "subscription_charge"] as const;
export type CardKind = (typeof CARD_KINDS)[number];

const t = transactions;
const ph = (name: string) => sql.placeholder(name);
const COLUMNS = Object.keys(getTableColumns(t));

export interface SettleSet {
  status: string;
  declineCode: number | null;
  updatedAt: number;
}

/** Prepared once: the card payment path runs these per request. */
export class PaymentsRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly settleStmt;
  private readonly clearDueStmt;
  private readonly nextDueStmt;
  private readonly dueStmt;

  constructor(db: Db) {
    const values = Object.fromEntries(COLUMNS.map((c) => [c, ph(c)])) as unknown as NewTransactionRow;
    this.insertStmt = db.insert(t).values(values).prepare();
    this.byIdStmt = db
      .select()
      .from(t)
      .where(eq(t.id, ph("id")))
      .prepare();
    this.settleStmt = db
      .update(t)
      .set({
        status: sql`${ph("status")}`,
        declineCode: sql`${ph("declineCode")}`,
        dueAt: null,
        dueStatus: null,
        dueDeclineCode: null,
        updatedAt: sql`${ph("updatedAt")}`,
      })
      .where(eq(t.id, ph("id")))
      .prepare();
    this.clearDueStmt = db
      .update(t)
      .set({ dueAt: null, dueStatus: null, dueDeclineCode: null })
      .where(eq(t.id, ph("id")))
      .prepare();
    const cardKinds = inArray(t.kind, [...CARD_KINDS]);
    this.nextDueStmt = db
      .select({ at: min(t.dueAt) })
      .from(t)
      .where(and(isNotNull(t.dueAt), cardKinds))
      .prepare();
    this.dueStmt = db
      .select()
      .from(t)
      .where(and(lte(t.dueAt, ph("now")), cardKinds))
      .orderBy(asc(t.dueAt), asc(t.createdAt))
      .limit(ph("limit"))
      .prepare();
  }

  insert(row: TransactionRow): void {
    this.insertStmt.run(row as unknown as Record<string, unknown>);
  }

  byId(id: string): TransactionRow | undefined {
    return this.byIdStmt.get({ id });
  }

  /** The final status; clears the deadline. */
  settle(id: string, set: SettleSet): void {
    this.settleStmt.run({ id, ...set });
  }

  clearDue(id: string): void {
    this.clearDueStmt.run({ id });
  }

  nextDueAt(): number | undefined {
    return this.nextDueStmt.get()?.at ?? undefined;
  }

  dueBy(now: number, limit: number): TransactionRow[] {
    return this.dueStmt.all({ now, limit });
  }
}
