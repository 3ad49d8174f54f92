import { and, asc, desc, eq, isNotNull, lte, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { lazy } from "../../db/lazy.js";
import { cardTokens, subscriptions, transactions } from "../../db/schema/index.js";

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
export type LatestCharge = Pick<typeof transactions.$inferSelect, "id" | "status" | "declineCode">;

/** Statuses the scheduler looks at: charges for ACTIVE/TRIALING, the endDate cut-off for PAUSED too. */
export const SCHEDULED_STATUSES = ["ACTIVE", "TRIALING", "PAUSED"] as const;

const s = subscriptions;
const p = (name: string) => sql`${sql.placeholder(name)}`;
// rowid follows the due index (status, next_charge_at), so this order needs no sort step
const rowid = sql`${s}.rowid`;

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
    this.earliestStmt = lazy(() =>
      db
        .select({ at: s.nextChargeAt })
        .from(s)
        .where(and(eq(s.status, sql.placeholder("status")), isNotNull(s.nextChargeAt)))
        .orderBy(asc(s.nextChargeAt))
        .limit(1)
        .prepare(),
    );
    this.dueStmt = lazy(() =>
      db
        .select({
          sub: s,
          card: {
            token: cardTokens.token,
            cardBin: cardTokens.cardBin,
            cardLast4: cardTokens.cardLast4,
            cardLength: cardTokens.cardLength,
            expMonth: cardTokens.expMonth,
            expYear: cardTokens.expYear,
            cardHolder: cardTokens.cardHolder,
            cardBrand: cardTokens.cardBrand,
            cardProfile: cardTokens.cardProfile,
          },
        })
        .from(s)
        .leftJoin(cardTokens, eq(cardTokens.token, s.cardToken))
        .where(and(eq(s.status, sql.placeholder("status")), lte(s.nextChargeAt, sql.placeholder("now"))))
        .orderBy(asc(s.nextChargeAt), asc(rowid))
        .limit(sql.placeholder("limit"))
        .prepare(),
    );
    this.latestStmt = lazy(() =>
      db
        .select({ id: transactions.id, status: transactions.status, declineCode: transactions.declineCode })
        .from(transactions)
        .where(eq(transactions.subscriptionId, sql.placeholder("id")))
        .orderBy(desc(transactions.createdAt), desc(sql`${transactions}.rowid`))
        .limit(1)
        .prepare(),
    );
    this.scheduleStmt = lazy(() =>
      db
        .update(s)
        .set({
          status: p("status") as SQL<string>,
          nextChargeDate: p("nextChargeDate") as SQL<string | null>,
          nextChargeAt: p("nextChargeAt") as SQL<number | null>,
          failureCount: p("failureCount") as SQL<number>,
          chargeCount: p("chargeCount") as SQL<number>,
          updatedAt: p("updatedAt") as SQL<number>,
        })
        .where(eq(s.id, sql.placeholder("id")))
        .prepare(),
    );
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
    this.scheduleStmt.run({ id, ...v });
  }

  delete(id: string): void {
    this.db.delete(s).where(eq(s.id, id)).run();
  }

  /** The earliest nextChargeAt over the scheduled statuses: one index probe per status. */
  earliestLookAt(): number | undefined {
    let best: number | undefined;
    for (const status of SCHEDULED_STATUSES) {
      const at = this.earliestStmt.get({ status })?.at;
      if (at !== null && at !== undefined && (best === undefined || at < best)) best = at;
    }
    return best;
  }

  /** Up to `limit` rows of one status due by `now`, oldest first, with their token's card. */
  dueRows(status: string, now: number, limit: number): DueRow[] {
    return this.dueStmt.all({ status, now, limit }) as DueRow[];
  }

  /** The subscription's most recent charge (creation or scheduled), for GET. */
  latestCharge(id: string): LatestCharge | undefined {
    return this.latestStmt.get({ id });
  }
}
