import { and, asc, eq, isNotNull, lte, min, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { preparedWrite } from "../../db/insert.js";
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

/** A callback's delivery, written with the change's own statement (src/webhooks/outbox.ts `prepare` makes it). */
export interface DeliveryColumns {
  id: string;
  kind: string;
  orderKey: string;
  url: string;
  headers: string;
  body: string;
}

/** A create's idempotency key (src/modules/idempotency/): its operation, the body's hash and the first answer, as JSON. */
export interface KeyColumns {
  operation: string;
  bodyHash: string;
  response: string;
}

/** Sums of a payment's refunds that are not FAILED (order and processed currency, minor units). */
export interface RefundTotals {
  orderAmount: number;
  processedAmount: number;
}

/** The side-effect columns of migration 0009's writes, after the row's own. */
const DELIVERY = ["wh_id", "wh_kind", "wh_order_key", "wh_url", "wh_headers", "wh_body"] as const;
const KEY = ["idem_operation", "idem_body_hash", "idem_response"] as const;

/**
 * The one repo over the transactions table, every kind. Prepared once: the create paths run these
 * per request. A new row and a status change are each one statement with their side effects
 * (migration 0009): the `transaction` event, the callback's delivery, a create's idempotency key.
 */
export class TransactionsRepo {
  private readonly writeStmt;
  private readonly moveStmt;
  /** The side-effect values of a write, filled in place (one array for every write). */
  private readonly extra: unknown[] = new Array(DELIVERY.length + KEY.length).fill(null);
  private readonly byIdStmt;
  private readonly setDueStmt;
  private readonly setDetailsStmt;
  private readonly nextDueStmt;
  private readonly dueStmt;
  private readonly refundTotalsStmt;
  private readonly succeededRefundsStmt;

  constructor(db: Db) {
    this.writeStmt = preparedWrite(db.$client, t, { into: "transaction_writes", extra: [...DELIVERY, ...KEY] });
    this.moveStmt = lazy(() =>
      db.$client.prepare(
        `INSERT INTO transaction_moves (id, status, decline_code, due_at, due_status, due_decline_code, updated_at, ${DELIVERY.join(", ")}) VALUES (${Array(
          7 + DELIVERY.length,
        )
          .fill("?")
          .join(", ")})`,
      ),
    );
    this.byIdStmt = lazy(() =>
      db
        .select()
        .from(t)
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

  /** A new row, its event, and (when given) its callback's delivery and the create's idempotency key: one statement. */
  create(row: TransactionRow, delivery: DeliveryColumns | undefined, key: KeyColumns | undefined): void {
    const x = this.extra;
    setDelivery(x, delivery);
    x[6] = key?.operation ?? null;
    x[7] = key?.bodyHash ?? null;
    x[8] = key?.response ?? null;
    this.writeStmt(row, x);
  }

  /** A new status and the deadline that now applies (none for a final status), its event, and (when given) its callback's delivery: one statement. */
  move(id: string, set: StatusSet & DueSet, delivery: DeliveryColumns | undefined): void {
    const d = delivery;
    this.moveStmt.run(
      id,
      set.status,
      set.declineCode,
      set.dueAt,
      set.dueStatus,
      set.dueDeclineCode,
      set.updatedAt,
      d?.id ?? null,
      d?.kind ?? null,
      d?.orderKey ?? null,
      d?.url ?? null,
      d?.headers ?? null,
      d?.body ?? null,
    );
  }

  byId(id: string): TransactionRow | undefined {
    return this.byIdStmt.get({ id });
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

function setDelivery(x: unknown[], d: DeliveryColumns | undefined): void {
  x[0] = d?.id ?? null;
  x[1] = d?.kind ?? null;
  x[2] = d?.orderKey ?? null;
  x[3] = d?.url ?? null;
  x[4] = d?.headers ?? null;
  x[5] = d?.body ?? null;
}
