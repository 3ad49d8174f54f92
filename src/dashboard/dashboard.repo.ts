/**
 * The dashboard's read-only queries (docs/dashboard.md). It reads the tables every area writes
 * (transactions of every kind, subscriptions, webhook deliveries and their attempts, merchants,
 * scenarios) and writes nothing: every action goes through the service that owns it.
 *
 * Lists page by keyset on (created_at, rowid), newest first, never by OFFSET: a page costs the same
 * at any depth, and rows added meanwhile never shift the pages already seen. rowid breaks ties
 * between rows of the same virtual millisecond in insertion order, and it is the tail of every
 * index on created_at, so `(merchant_key, created_at)` serves a merchant's pages without a sort.
 * The transactions table has no index on created_at alone (no schema change for a read model), so
 * a list across merchants walks that index once per merchant and merges the pages: 50 rows of
 * 10,000 cost ~1 ms instead of a ~15 ms scan and sort.
 *
 * LIMITATIONS:
 * - Past MERGE_MAX_MERCHANTS merchants with transactions, a list across merchants scans and sorts.
 * - The subscription list has no created_at index: it scans and sorts (subscriptions are fewer).
 */
import { and, asc, desc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client.js";
import { merchants, ofTransaction, scenarios, subscriptions, transactions, webhookDeliveries } from "../db/schema/index.js";
import { type AttemptRow, attemptsOf } from "../webhooks/webhooks.repo.js";

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
export type { AttemptRow };
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
  cardLength: t.cardLength,
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
 * Runs one keyset page: `fetch(cursor, forward, limit)` reads `limit` rows past the cursor, towards
 * newer rows when `forward`; one row more than asked tells whether another page follows.
 */
function keysetPage<T extends { createdAt: number; rowid: number }>(
  req: PageRequest,
  fetch: (cursor: Cursor | undefined, forward: boolean, limit: number) => T[],
): Page<T> {
  const cursor = req.after ?? req.before;
  const forward = req.after !== undefined;
  const got = fetch(cursor, forward, req.limit + 1);
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

/** `(created_at, rowid)` past a cursor, and the matching order. */
function keysetSql(createdAt: SQLiteColumn, rowid: SQL, cursor: { at: unknown; rowid: unknown } | undefined, forward: boolean) {
  const where = cursor
    ? forward
      ? sql`(${createdAt}, ${rowid}) > (${cursor.at}, ${cursor.rowid})`
      : sql`(${createdAt}, ${rowid}) < (${cursor.at}, ${cursor.rowid})`
    : undefined;
  return { where, order: forward ? [asc(createdAt), asc(rowid)] : [desc(createdAt), desc(rowid)] };
}

/** Which parts a transaction list query has: its prepared statement is made once per shape. */
interface ListShape {
  merchant: boolean;
  kind: boolean;
  status: boolean;
  subscription: boolean;
  cursor: boolean;
  forward: boolean;
}

/** The transaction list's query for one shape, with placeholders (merchant, kind, status, subscription, at, rowid, limit). */
function prepareList(db: Db, shape: ListShape) {
  const ph = (name: string) => sql`${sql.placeholder(name)}`;
  const { where, order } = keysetSql(
    t.createdAt,
    sql`${t}.rowid`,
    shape.cursor ? { at: sql.placeholder("at"), rowid: sql.placeholder("rowid") } : undefined,
    shape.forward,
  );
  return db
    .select(LIST_COLUMNS)
    .from(t)
    .where(
      and(
        shape.merchant ? eq(t.merchantKey, ph("merchant")) : undefined,
        shape.kind ? eq(t.kind, ph("kind")) : undefined,
        shape.status ? eq(t.status, ph("status")) : undefined,
        shape.subscription ? eq(t.subscriptionId, ph("subscription")) : undefined,
        where,
      ),
    )
    .orderBy(...order)
    .limit(sql.placeholder("limit"))
    .prepare();
}

/** Up to this many merchants with transactions, a list across merchants merges per-merchant index walks. */
export const MERGE_MAX_MERCHANTS = 32;

export class DashboardRepo {
  private readonly distinctMerchants;
  private readonly listStatements = new Map<string, ReturnType<typeof prepareList>>();

  constructor(private readonly db: Db) {
    this.distinctMerchants = db.$client.prepare(
      `WITH RECURSIVE m(k) AS (
         SELECT min(merchant_key) FROM transactions
         UNION ALL SELECT (SELECT min(merchant_key) FROM transactions WHERE merchant_key > m.k) FROM m WHERE m.k IS NOT NULL
       ) SELECT k FROM m WHERE k IS NOT NULL`,
    );
  }

  transactions(f: TransactionFilter, req: PageRequest): Page<TransactionListRow> {
    const of =
      (merchant: string | undefined) =>
      (cursor: Cursor | undefined, forward: boolean, limit: number): TransactionListRow[] =>
        this.listStatement({
          merchant: merchant !== undefined,
          kind: f.kind !== undefined,
          status: f.status !== undefined,
          subscription: f.subscription !== undefined,
          cursor: cursor !== undefined,
          forward,
        }).all({
          merchant,
          kind: f.kind,
          status: f.status,
          subscription: f.subscription,
          at: cursor?.at,
          rowid: cursor?.rowid,
          limit,
        });
    // one merchant, or one subscription (its own index, a few rows): one query
    if (f.merchant !== undefined || f.subscription !== undefined) return keysetPage(req, of(f.merchant));
    const keys = this.merchantKeys();
    if (keys.length > MERGE_MAX_MERCHANTS) return keysetPage(req, of(undefined));
    return keysetPage(req, (cursor, forward, limit) => {
      const sign = forward ? 1 : -1;
      return keys
        .flatMap((k) => of(k)(cursor, forward, limit))
        .sort((a, b) => sign * (a.createdAt - b.createdAt || a.rowid - b.rowid))
        .slice(0, limit);
    });
  }

  private listStatement(shape: ListShape) {
    const key = Object.values(shape).join();
    let statement = this.listStatements.get(key);
    if (!statement) {
      statement = prepareList(this.db, shape);
      this.listStatements.set(key, statement);
    }
    return statement;
  }

  /** The merchant keys that have transactions: one index seek each (a skip scan), not a walk of the index. */
  private merchantKeys(): string[] {
    return (this.distinctMerchants.all() as Array<{ k: string }>).map((r) => r.k);
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
    return this.db.select().from(webhookDeliveries).where(ofTransaction(transactionId)).orderBy(asc(webhookDeliveries.seq)).all();
  }

  attempts(deliveryIds: string[]): AttemptRow[] {
    return attemptsOf(this.db, deliveryIds);
  }

  subscriptions(f: SubscriptionFilter, req: PageRequest): Page<SubscriptionRow & { rowid: number }> {
    const filters = [
      f.merchant !== undefined ? eq(s.merchantKey, f.merchant) : undefined,
      f.status !== undefined ? eq(s.status, f.status) : undefined,
    ];
    const rowid = sql<number>`${s}.rowid`;
    return keysetPage(req, (cursor, forward, limit) => {
      const { where, order } = keysetSql(s.createdAt, rowid, cursor, forward);
      return this.db
        .select({ ...getTableColumns(s), rowid })
        .from(s)
        .where(and(...filters, where))
        .orderBy(...order)
        .limit(limit)
        .all();
    });
  }

  merchants(): MerchantRow[] {
    return this.db.select().from(merchants).orderBy(asc(merchants.merchantId)).all();
  }

  scenarios(): ScenarioRow[] {
    return this.db.select().from(scenarios).orderBy(asc(scenarios.loadedAt), asc(scenarios.name)).all();
  }
}
