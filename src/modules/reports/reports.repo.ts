import type { Statement } from "better-sqlite3";
import type { Db } from "../../db/client.js";

/** One transaction as the report reads it (columns in this order, `.raw()` arrays: no object per row). */
export type ReportDbRow = [
  id: string,
  kind: string,
  paymentMethod: string | null,
  requestId: string | null,
  parentId: string | null,
  subscriptionId: string | null,
  status: string,
  declineCode: number | null,
  orderAmount: number,
  orderCurrency: string,
  processedAmount: number,
  processedCurrency: string,
  conversionRate: string,
  cardBin: string | null,
  cardLast4: string | null,
  createdAt: number,
  updatedAt: number,
  rowid: number,
  cardLength: number | null,
];

/** Where the last page ended: the next page starts strictly after (time, rowid). */
export interface ReportCursor {
  at: number;
  rowid: number;
}

export type ReportTimeColumn = "created_at" | "updated_at";

const SELECT = `SELECT id, kind, payment_method, request_id, parent_id, subscription_id, status, decline_code,
  order_amount, order_currency, processed_amount, processed_currency, conversion_rate, card_bin, card_last4,
  created_at, updated_at, rowid, card_length FROM transactions`;

// Keyset pages over the (merchant_key, <time>) indexes: the index holds the rowid, so
// ORDER BY <time>, rowid is the index order and a page costs O(page), wherever it starts.
const pageSql = (col: ReportTimeColumn) =>
  `${SELECT} WHERE merchant_key = ? AND ${col} <= ? AND (${col}, rowid) > (?, ?) ORDER BY ${col}, rowid LIMIT ?`;

const statements = new WeakMap<Db, Record<ReportTimeColumn, Statement<unknown[], ReportDbRow>>>();

function prepared(db: Db, col: ReportTimeColumn): Statement<unknown[], ReportDbRow> {
  let s = statements.get(db);
  if (!s) {
    const prep = (c: ReportTimeColumn) => db.$client.prepare<unknown[], ReportDbRow>(pageSql(c)).raw(true);
    s = { created_at: prep("created_at"), updated_at: prep("updated_at") };
    statements.set(db, s);
  }
  return s[col];
}

export const reportsRepo = {
  /**
   * Up to `limit` of the merchant's rows with `after < (col, rowid)` and `col <= toMs`, oldest
   * first. `.all()`, not `.iterate()`: an open iterator would hold the one connection busy.
   */
  page(db: Db, merchantKey: string, col: ReportTimeColumn, after: ReportCursor, toMs: number, limit: number): ReportDbRow[] {
    return prepared(db, col).all(merchantKey, toMs, after.at, after.rowid, limit);
  },
};
