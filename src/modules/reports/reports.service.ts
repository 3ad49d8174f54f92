/**
 * The transaction report (interface §4.14; CONTRACT §3 "Transaction report"): the merchant's
 * transactions of every kind in a UTC range, oldest first, as CSV or an .xlsx workbook, streamed
 * from the database in keyset pages so memory does not grow with the row count.
 *
 * LIMITATIONS:
 * - Pages are read one after another, not in one snapshot: a row written while a report streams
 *   appears if it sorts after the page being read; with lastModifiedDate, a row changed during
 *   the stream can move past the cursor and appear twice, or before it and be missed.
 * - No maximum range (the interface shows none); the rows stream, so a large range costs time only.
 * - CSV fields are RFC 4180-quoted but not defused for spreadsheets (a requestId starting with
 *   `=` stays as sent); the .xlsx holds every text as a string cell, never a formula.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Db } from "../../db/client.js";
import type { Merchant } from "../../db/schema/index.js";
import { badRequest } from "../../platform/errors.js";
import { cardMask } from "../payments/card.js";
import { KIND_FACTS, type TransactionKind } from "../transactions/kinds.js";
import { type ReportFormat, type ReportRow, reportStream } from "./reports.formats.js";
import { type ReportCursor, type ReportDbRow, reportsRepo } from "./reports.repo.js";
import { parseReportDate, type ReportRequest } from "./reports.routes.js";

/** Rows read per page: large enough that a page's fixed cost vanishes, small enough to stay a few MB. */
export const REPORT_PAGE_ROWS = 500;

/** One report row, typed (amounts in minor units, times in ms); the formats turn it into text or cells. */

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

/** The inclusive UTC range of a request (CONTRACT §3): a bare dateTo is the end of that day, a timed one the end of that second. */
export function reportRange(req: Pick<ReportRequest, "dateFrom" | "dateTo">): { fromMs: number; toMs: number } {
  const from = parseReportDate(req.dateFrom);
  const to = parseReportDate(req.dateTo);
  if (!from) throw badRequest("Invalid field: dateFrom");
  if (!to) throw badRequest("Invalid field: dateTo");
  const toMs = to.ms + (to.hasTime ? 999 : 86_400_000 - 1);
  if (toMs < from.ms) throw badRequest("Invalid field: dateTo (before dateFrom)");
  return { fromMs: from.ms, toMs };
}

export interface OpenReport {
  filename: string;
  contentType: string;
  body: ReadableStream<Uint8Array>;
}

/** `report-<dateFrom>-<dateTo>.csv|.xlsx`, with a time's space and colons made file-name safe (`2026-01-01_10-00-00`). */
export function reportFilename(req: Pick<ReportRequest, "dateFrom" | "dateTo">, format: ReportFormat): string {
  const safe = (d: string) => d.replace(" ", "_").replaceAll(":", "-");
  return `report-${safe(req.dateFrom)}-${safe(req.dateTo)}.${format === "XLS" ? "xlsx" : "csv"}`;
}

/**
 * Pages of the merchant's rows in the range, oldest first by the chosen time (createdDate →
 * created_at, lastModifiedDate → updated_at), each page read with one short statement and
 * the event loop given back between pages so other requests are served while a report streams.
 */
export async function* reportPages(db: Db, merchantKey: string, req: ReportRequest): AsyncGenerator<ReportRow[]> {
  const { fromMs, toMs } = reportRange(req);
  const col = req.dateSource === "lastModifiedDate" ? "updated_at" : "created_at";
  let after: ReportCursor = { at: fromMs, rowid: Number.MIN_SAFE_INTEGER };
  // the first page's bound is inclusive: (at, MIN) sorts before every row at `fromMs`
  for (;;) {
    const rows = reportsRepo.page(db, merchantKey, col, after, toMs, REPORT_PAGE_ROWS);
    if (rows.length > 0) yield rows.map(toReportRow);
    if (rows.length < REPORT_PAGE_ROWS) return;
    const last = rows[rows.length - 1] as ReportDbRow;
    after = { at: col === "updated_at" ? last[16] : last[15], rowid: last[17] };
    await yieldToEventLoop();
  }
}

/**
 * Opens a report for the merchant (the one use case of the route): checks the range first, so
 * a bad request is a 400 before any byte is sent, then returns the stream to send.
 */
export function openReport(db: Db, merchant: Merchant, req: ReportRequest): OpenReport {
  reportRange(req);
  const format: ReportFormat = req.format;
  return {
    filename: reportFilename(req, format),
    contentType:
      format === "XLS" ? "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" : "text/csv; charset=utf-8",
    body: reportStream(format, reportPages(db, merchant.merchantKey, req)),
  };
}
