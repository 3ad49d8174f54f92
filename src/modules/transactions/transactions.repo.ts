import { and, asc, eq, isNotNull, lte, min, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { inWhole } from "../../db/commit.js";
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

/** The side-effect columns of migration 0009's `transaction_moves`, after the move's own. */
const DELIVERY = ["wh_id", "wh_kind", "wh_order_key", "wh_url", "wh_headers", "wh_body"] as const;

/**
 * The `transaction` event of a row just written (docs/events.md), byte for byte what migration 0009's
 * triggers write: numbers are bound as REAL, so the decline code is cast back to an integer.
 */
const EVENT_INSERT = `INSERT INTO events (type, transaction_id, merchant, data) VALUES ('transaction', ?, ?,
  json_object('transactionId', ?, 'kind', ?, 'merchant', ?, 'status', ?, 'declineCode', CAST(? AS INTEGER),
    'at', strftime('%Y-%m-%dT%H:%M:%fZ', ? / 1000.0, 'unixepoch')))`;

/** A callback's delivery, waiting for the sender (no due time, not in flight: src/webhooks/dispatcher.ts places it at the commit). */
const DELIVERY_INSERT = `INSERT INTO webhook_deliveries (id, merchant_key, kind, order_key, transaction_id, event_status, url,
  headers, body, status, attempt_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`;

/** A create's idempotency key, unless its requestId already has one (then nothing is written: `changes` is 0). */
const KEY_INSERT = `INSERT INTO idempotency_keys (merchant_key, operation, request_id, body_hash, http_status, response, created_at)
  VALUES (?, ?, ?, ?, 200, ?, ?) ON CONFLICT DO NOTHING`;

/**
 * The one repo over the transactions table, every kind. Prepared once: the create paths run these
 * per request. A new row is written with its side effects (the `transaction` event, the callback's
 * delivery, a create's idempotency key) by plain statements that stand or fall together
 * (`inWhole`); a status change is one statement with its side effects (migration 0009's
 * `transaction_moves`).
 */
export class TransactionsRepo {
  private readonly insertRow;
  private readonly keyStmt;
  private readonly eventStmt;
  private readonly deliveryStmt;
  private readonly moveStmt;
  private readonly byIdStmt;
  private readonly setDueStmt;
  private readonly setDetailsStmt;
  private readonly nextDueStmt;
  private readonly dueStmt;
  private readonly refundTotalsStmt;
  private readonly succeededRefundsStmt;

  constructor(private readonly db: Db) {
    this.insertRow = preparedInsert(db.$client, t);
    this.keyStmt = lazy(() => db.$client.prepare(KEY_INSERT));
    this.eventStmt = lazy(() => db.$client.prepare(EVENT_INSERT));
    this.deliveryStmt = lazy(() => db.$client.prepare(DELIVERY_INSERT));
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

  /**
   * A new row, its event (`mid`: its merchant's), and (when given) its callback's delivery and the
   * create's idempotency key, whole or not at all. The key goes first: when its requestId already has
   * one, nothing is written and this returns false (the caller replays the first answer), so a create
   * needs no look-up before it. None of these statements can break a constraint (the ids are random,
   * the key's conflict is DO NOTHING), so they need no savepoint (`inWhole`).
   */
  create(row: TransactionRow, mid: string | null, delivery: DeliveryColumns | undefined, key: KeyColumns | undefined): boolean {
    return inWhole(this.db, () => {
      if (key) {
        const { changes } = this.keyStmt.run(
          row.merchantKey,
          key.operation,
          row.requestId,
          key.bodyHash,
          key.response,
          row.createdAt,
        );
        if (changes === 0) return false;
      }
      this.insertRow(row);
      this.eventStmt.run(row.id, mid, row.id, row.kind, mid, row.status, row.declineCode, row.updatedAt);
      const d = delivery;
      if (d) {
        this.deliveryStmt.run(
          d.id,
          row.merchantKey,
          d.kind,
          d.orderKey,
          row.id,
          row.status,
          d.url,
          d.headers,
          d.body,
          row.updatedAt,
          row.updatedAt,
        );
      }
      return true;
    });
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
