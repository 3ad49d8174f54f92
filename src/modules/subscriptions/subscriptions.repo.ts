import { desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { lazy } from "../../db/lazy.js";
import { cardTokens, subscriptions, transactions } from "../../db/schema/index.js";
import { rowReader } from "../../db/select.js";

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type NewSubscriptionRow = typeof subscriptions.$inferInsert;
export type TokenCard = Pick<
  typeof cardTokens.$inferSelect,
  "token" | "cardBin" | "cardLast4" | "cardLength" | "expMonth" | "expYear" | "cardHolder" | "cardBrand" | "cardProfile"
>;
export interface DueRow {
  sub: SubscriptionRow;
  card: TokenCard | null;
}
/** Where a read of due rows stopped: the last row's (nextChargeAt, rowid), the due order. */
export type DueCursor = readonly [number, number];
/** Before every due row. */
export const DUE_START: DueCursor = [Number.MIN_SAFE_INTEGER, 0];
export type LatestCharge = Pick<typeof transactions.$inferSelect, "id" | "status" | "declineCode">;

/** Statuses the scheduler looks at: charges for ACTIVE/TRIALING, the endDate cut-off for PAUSED too. */
export const SCHEDULED_STATUSES = ["ACTIVE", "TRIALING", "PAUSED"] as const;

const s = subscriptions;
/** The due read's columns: the subscription's, then its token's card (all null when the token is gone). */
const SUB = rowReader(s, "s");
const CARD_KEYS = [
  "token",
  "cardBin",
  "cardLast4",
  "cardLength",
  "expMonth",
  "expYear",
  "cardHolder",
  "cardBrand",
  "cardProfile",
] as const satisfies readonly (keyof TokenCard)[];
const CARD = rowReader(cardTokens, "c", CARD_KEYS);
const DUE_SQL = `SELECT ${SUB.columns}, ${CARD.columns}, "s"."rowid"
  FROM "subscriptions" "s" LEFT JOIN "card_tokens" "c" ON "c"."token" = "s"."card_token"
  WHERE "s"."status" = ? AND "s"."next_charge_at" <= ? AND ("s"."next_charge_at", "s"."rowid") > (?, ?)
  ORDER BY "s"."next_charge_at", "s"."rowid" LIMIT ?`; // rowid follows the due index: no sort step
const NEXT_CHARGE_AT = SUB.indexOf("nextChargeAt");
/**
 * The earliest nextChargeAt of a scheduled subscription: one statement (a clock advance asks before
 * every step), each status's min() read off the end of the due index.
 */
const EARLIEST_SQL = `SELECT min("at") FROM (${SCHEDULED_STATUSES.map(
  (st) => `SELECT min("next_charge_at") AS "at" FROM "subscriptions" WHERE "status" = '${st}'`,
).join(" UNION ALL ")})`;
const SCHEDULE_SQL = `UPDATE "subscriptions" SET "status" = ?, "next_charge_date" = ?, "next_charge_at" = ?,
  "failure_count" = ?, "charge_count" = ?, "updated_at" = ? WHERE "id" = ?`;

export class SubscriptionsRepo {
  private readonly byIdStmt;
  private readonly earliestStmt;
  private readonly dueStmt;
  private readonly latestStmt;
  private readonly scheduleStmt;

  constructor(private readonly db: Db) {
    this.byIdStmt = lazy(() =>
      db
        .select()
        .from(s)
        .where(eq(s.id, sql.placeholder("id")))
        .prepare(),
    );
    this.earliestStmt = lazy(() => db.$client.prepare(EARLIEST_SQL).pluck(true));
    // better-sqlite3 directly, raw rows (drizzle's row mapping was half of this read's
    // cost over 1,000,000 due rows); the same columns, order and values as the drizzle select was
    this.dueStmt = lazy(() => db.$client.prepare(DUE_SQL).raw(true));
    this.latestStmt = lazy(() =>
      db
        .select({ id: transactions.id, status: transactions.status, declineCode: transactions.declineCode })
        .from(transactions)
        .where(eq(transactions.subscriptionId, sql.placeholder("id")))
        .orderBy(desc(transactions.createdAt), desc(sql`${transactions}.rowid`))
        .limit(1)
        .prepare(),
    );
    this.scheduleStmt = lazy(() => db.$client.prepare(SCHEDULE_SQL));
  }

  insert(row: NewSubscriptionRow): void {
    this.db.insert(s).values(row).run();
  }

  byId(id: string): SubscriptionRow | undefined {
    return this.byIdStmt.get({ id });
  }

  update(id: string, set: Partial<NewSubscriptionRow>): void {
    this.db.update(s).set(set).where(eq(s.id, id)).run();
  }

  /** The scheduler's per-charge write (prepared: it runs once per charge in a batch). */
  setSchedule(
    id: string,
    v: Pick<SubscriptionRow, "status" | "nextChargeDate" | "nextChargeAt" | "failureCount" | "chargeCount" | "updatedAt">,
  ): void {
    this.scheduleStmt.run(v.status, v.nextChargeDate, v.nextChargeAt, v.failureCount, v.chargeCount, v.updatedAt, id);
  }

  delete(id: string): void {
    this.db.delete(s).where(eq(s.id, id)).run();
  }

  /** The earliest nextChargeAt over the scheduled statuses: one index probe per status. */
  earliestLookAt(): number | undefined {
    return (this.earliestStmt.get() as number | null) ?? undefined;
  }

  /**
   * Up to `limit` rows of one status due by `now`, oldest first, with their token's card, after
   * `after` (keyset pages: a billing batch reads a few at a time), and where they end.
   */
  dueRows(status: string, now: number, limit: number, after: DueCursor = DUE_START): { rows: DueRow[]; end: DueCursor } {
    const raws = this.dueStmt.all(status, now, after[0], after[1], limit) as unknown[][];
    const rows = raws.map((raw) => ({ sub: SUB.read(raw), card: raw[SUB.width] === null ? null : CARD.read(raw, SUB.width) }));
    const last = raws[raws.length - 1];
    const end: DueCursor = last ? [last[NEXT_CHARGE_AT] as number, last[SUB.width + CARD.width] as number] : after;
    return { rows, end };
  }

  /** The subscription's most recent charge (creation or scheduled), for GET. */
  latestCharge(id: string): LatestCharge | undefined {
    return this.latestStmt.get({ id });
  }
}
