/**
 * The dashboard's read-only queries (CONTRACT §7). It reads the tables every area writes
 * (transactions of every kind, subscriptions, webhook deliveries and their attempts, merchants,
 * scenarios) and writes nothing: every action goes through the service that owns it.
 *
 * Lists page by keyset on (created_at, rowid), newest first, never by OFFSET: a page costs the same
 * at any depth, and rows added meanwhile never shift the pages already seen. rowid breaks ties
 * between rows of the same virtual millisecond in insertion order, and it is the tail of every
 * index on created_at, so `(merchant_key, created_at)` serves a merchant's pages without a sort.
 */
import { and, asc, desc, eq, getTableColumns, inArray, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client.js";
import { merchants, scenarios, subscriptions, transactions, webhookAttempts, webhookDeliveries } from "../../db/schema/index.js";

/** A position in a list: the created_at and rowid of the row next to it. */
export interface Cursor {
  at: number;
  rowid: number;
}

export const encodeCursor = (c: Cursor): string => `${c.at}.${c.rowid}`;

/** `1768478400000.42` → a Cursor; anything else → undefined. */
export function decodeCursor(text: string): Cursor | undefined {
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(text);
  return m ? { at: Number(m[1]), rowid: Number(m[2]) } : undefined;
}

/** One page request: at most one of `before` (older rows) and `after` (newer rows). */
export interface PageRequest {
  before?: Cursor | undefined;
  after?: Cursor | undefined;
  limit: number;
}

/** A page, newest first, with the cursors of the pages next to it when they exist. */
export interface Page<T> {
  rows: T[];
  older?: Cursor | undefined;
  newer?: Cursor | undefined;
}

export interface TransactionFilter {
  merchant?: string | undefined;
  kind?: string | undefined;
  status?: string | undefined;
  subscription?: string | undefined;
}

export interface SubscriptionFilter {
  merchant?: string | undefined;
  status?: string | undefined;
}

export type TransactionRow = typeof transactions.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;
export type MerchantRow = typeof merchants.$inferSelect;
export type ScenarioRow = typeof scenarios.$inferSelect;

const t = transactions;
const s = subscriptions;

/** The columns of the transaction list (no JSON blobs). */
const LIST_COLUMNS = {
  rowid: sql<number>`${t}.rowid`,
  id: t.id,
  merchantKey: t.merchantKey,
  kind: t.kind,
  requestId: t.requestId,
  status: t.status,
  declineCode: t.declineCode,
  cardBin: t.cardBin,
  cardLast4: t.cardLast4,
  paymentMethod: t.paymentMethod,
  parentId: t.parentId,
  subscriptionId: t.subscriptionId,
  orderAmount: t.orderAmount,
  orderCurrency: t.orderCurrency,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
};
export type TransactionListRow = Pick<TransactionRow, Exclude<keyof typeof LIST_COLUMNS, "rowid">> & { rowid: number };

/**
 * Runs one keyset page: `fetch(where, direction, limit)` reads `limit` rows past the cursor in that
 * direction; one row more than asked tells whether another page follows.
 */
function keysetPage<T extends { createdAt: number; rowid: number }>(
  createdAt: SQLiteColumn,
  rowid: SQL,
  req: PageRequest,
  fetch: (where: SQL | undefined, order: SQL[], limit: number) => T[],
): Page<T> {
  const cursor = req.after ?? req.before;
  const forward = req.after !== undefined; // towards newer rows
  const where = cursor
    ? forward
      ? sql`(${createdAt}, ${rowid}) > (${cursor.at}, ${cursor.rowid})`
      : sql`(${createdAt}, ${rowid}) < (${cursor.at}, ${cursor.rowid})`
    : undefined;
  const order = forward ? [asc(createdAt), asc(rowid)] : [desc(createdAt), desc(rowid)];
  const got = fetch(where, order, req.limit + 1);
  const more = got.length > req.limit;
  const rows = got.slice(0, req.limit);
  if (forward) rows.reverse();
  const edge = (r: T | undefined): Cursor | undefined => (r ? { at: r.createdAt, rowid: r.rowid } : undefined);
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    rows,
    newer: forward ? (more ? edge(first) : undefined) : cursor ? edge(first) : undefined,
    older: forward ? edge(last) : more ? edge(last) : undefined,
  };
}

export class DashboardRepo {
  constructor(private readonly db: Db) {}

  transactions(f: TransactionFilter, req: PageRequest): Page<TransactionListRow> {
    const filters = [
      f.merchant !== undefined ? eq(t.merchantKey, f.merchant) : undefined,
      f.kind !== undefined ? eq(t.kind, f.kind) : undefined,
      f.status !== undefined ? eq(t.status, f.status) : undefined,
      f.subscription !== undefined ? eq(t.subscriptionId, f.subscription) : undefined,
    ];
    return keysetPage(t.createdAt, sql`${t}.rowid`, req, (where, order, limit) =>
      this.db
        .select(LIST_COLUMNS)
        .from(t)
        .where(and(...filters, where))
        .orderBy(...order)
        .limit(limit)
        .all(),
    );
  }

  transaction(id: string): TransactionRow | undefined {
    return this.db.select().from(t).where(eq(t.id, id)).get();
  }

  /** A refund's original, or any row a page links to by id: the list columns only. */
  transactionSummary(id: string): TransactionListRow | undefined {
    return this.db.select(LIST_COLUMNS).from(t).where(eq(t.id, id)).get();
  }

  /** Rows whose parent_id is `id` (refunds of a payment), oldest first. */
  children(id: string): TransactionListRow[] {
    return this.db
      .select(LIST_COLUMNS)
      .from(t)
      .where(eq(t.parentId, id))
      .orderBy(asc(t.createdAt), asc(sql`${t}.rowid`))
      .all();
  }

  /** A transaction's webhook deliveries (replays included) in the order they were enqueued. */
  deliveries(transactionId: string): DeliveryRow[] {
    return this.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.transactionId, transactionId))
      .orderBy(asc(webhookDeliveries.seq))
      .all();
  }

  attempts(deliveryIds: string[]): AttemptRow[] {
    if (deliveryIds.length === 0) return [];
    return this.db
      .select()
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, deliveryIds))
      .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.n))
      .all();
  }

  subscriptions(f: SubscriptionFilter, req: PageRequest): Page<SubscriptionRow & { rowid: number }> {
    const filters = [
      f.merchant !== undefined ? eq(s.merchantKey, f.merchant) : undefined,
      f.status !== undefined ? eq(s.status, f.status) : undefined,
    ];
    const rowid = sql<number>`${s}.rowid`;
    return keysetPage(s.createdAt, rowid, req, (where, order, limit) =>
      this.db
        .select({ ...getTableColumns(s), rowid })
        .from(s)
        .where(and(...filters, where))
        .orderBy(...order)
        .limit(limit)
        .all(),
    );
  }

  merchants(): MerchantRow[] {
    return this.db.select().from(merchants).orderBy(asc(merchants.merchantId)).all();
  }

  scenarios(): ScenarioRow[] {
    return this.db.select().from(scenarios).orderBy(asc(scenarios.loadedAt), asc(scenarios.name)).all();
  }
}
