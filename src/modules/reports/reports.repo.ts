import type { Database, Statement } from "better-sqlite3";
import { cardMask } from "../../platform/cards.js";
import { KIND_FACTS, type TransactionKind } from "../transactions/kinds.js";

/** One row of the report, the columns of docs/report.md in order (amounts in minor units, times in virtual ms). */
export interface ReportRow {
  transactionId: string;
  type: string;
  paymentMethod: string;
  apmType: string | null;
  requestId: string | null;
  parentTransactionId: string | null;
  subscriptionId: string | null;
  status: string;
  declineCode: number | null;
  orderAmount: number;
  orderCurrency: string;
  processedAmount: number;
  processedCurrency: string;
  conversionRate: string;
  cardMask: string | null;
  createdAt: number;
  lastModifiedAt: number;
}

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

type Prepared = Record<ReportTimeColumn, Statement<unknown[], ReportDbRow>>;
const statements = new WeakMap<Database, Prepared>();

function prepared(db: Database, col: ReportTimeColumn): Statement<unknown[], ReportDbRow> {
  let s = statements.get(db);
  if (!s) {
    const prep = (c: ReportTimeColumn) => db.prepare<unknown[], ReportDbRow>(pageSql(c)).raw(true);
    s = { created_at: prep("created_at"), updated_at: prep("updated_at") };
    statements.set(db, s);
  }
  return s[col];
}

export const reportsRepo = {
  /**
   * Up to `limit` of the merchant's rows with `after < (col, rowid)` and `col <= toMs`, oldest
   * first. `.all()`, not `.iterate()`: an open iterator would hold the connection busy.
   */
  page(
    db: Database,
    merchantKey: string,
    col: ReportTimeColumn,
    after: ReportCursor,
    toMs: number,
    limit: number,
  ): ReportDbRow[] {
    return prepared(db, col).all(merchantKey, toMs, after.at, after.rowid, limit);
  },
};

/** A database row as a report row; the kind's facts (kinds.ts) give type and paymentMethod, nothing else is per kind. */
export function toReportRow(r: ReportDbRow): ReportRow {
  const facts = KIND_FACTS[r[1] as TransactionKind] as (typeof KIND_FACTS)[TransactionKind] | undefined;
  return {
    transactionId: r[0],
    type: facts?.reportType ?? r[1],
    paymentMethod: facts?.paymentMethod ?? "",
    apmType: r[2],
    requestId: r[3],
    parentTransactionId: r[4],
    subscriptionId: r[5],
    status: r[6],
    declineCode: r[7],
    orderAmount: r[8],
    orderCurrency: r[9],
    processedAmount: r[10],
    processedCurrency: r[11],
    conversionRate: r[12],
    cardMask: r[13] && r[14] ? cardMask(r[13], r[14], r[18]) : null,
    createdAt: r[15],
    lastModifiedAt: r[16],
  };
}

/** Rows read per page: large enough that a page's fixed cost vanishes, small enough to stay a few MB. */
export const REPORT_PAGE_ROWS = 500;

/** What a report reads: the merchant's rows with `fromMs <= col <= toMs`, oldest first by `col`. */
export interface ReportQuery {
  merchantKey: string;
  col: ReportTimeColumn;
  fromMs: number;
  toMs: number;
}

/** The query's rows page by page (keyset pages of REPORT_PAGE_ROWS, each one short statement). */
export function* reportPages(db: Database, q: ReportQuery): Generator<ReportDbRow[]> {
  // the first page's bound is inclusive: (from, MIN) sorts before every row at `fromMs`
  let after: ReportCursor = { at: q.fromMs, rowid: Number.MIN_SAFE_INTEGER };
  for (;;) {
    const rows = reportsRepo.page(db, q.merchantKey, q.col, after, q.toMs, REPORT_PAGE_ROWS);
    if (rows.length > 0) yield rows;
    if (rows.length < REPORT_PAGE_ROWS) return;
    const last = rows[rows.length - 1] as ReportDbRow;
    after = { at: q.col === "updated_at" ? last[16] : last[15], rowid: last[17] };
  }
}
