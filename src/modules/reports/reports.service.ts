/**
 * The transaction report (docs/report.md): the merchant's
 * transactions of every kind in a UTC range, oldest first, as CSV or an .xlsx workbook, streamed
 * so memory does not grow with the row count.
 *
 * On a database file the rows are read and encoded in a worker thread (reports.thread.ts,
 * reports.worker.ts) with its own read-only connection, in one read transaction: the report is
 * one consistent snapshot, and the server's event loop only passes the bytes on (docs/performance.md). A
 * `:memory:` database (tests) cannot be opened by a second connection: there the report is read
 * page by page on the request's thread and encoded by the same encoder, to the same bytes.
 *
 * LIMITATIONS:
 * - on `:memory:` only, pages are read one after another, not in one snapshot: a row written while
 *   the report streams appears if it sorts after the page being read.
 * - No maximum range (the interface shows none); the rows stream, so a large range costs time only.
 * - CSV fields are RFC 4180-quoted but not defused for spreadsheets (a requestId starting with
 *   `=` stays as sent); the .xlsx holds every text as a string cell, never a formula.
 */

import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Database } from "better-sqlite3";
import type { Db } from "../../db/client.js";
import type { Merchant } from "../../db/schema/index.js";
import { badRequest } from "../../platform/errors.js";
import { type ReportFormat, reportEncoder } from "./reports.formats.js";
import { type ReportQuery, reportPages } from "./reports.repo.js";
import { reportInWorker } from "./reports.thread.js";
import { parseReportDate, type ReportRequest } from "./reports.wire.js";

export { REPORT_PAGE_ROWS } from "./reports.repo.js";

/** The inclusive UTC range of a request (docs/report.md): a bare dateTo is the end of that day, a timed one the end of that second. */
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
 * The report on the request's thread (`:memory:` databases): one page read and encoded per pull,
 * only as fast as the client reads, the event loop given back between pages.
 */
export function reportInThread(db: Database, query: ReportQuery, format: ReportFormat): ReadableStream<Uint8Array> {
  const pages = reportPages(db, query);
  const encoder = reportEncoder(format);
  let ended = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (ended) return controller.close();
          const next = pages.next();
          const bytes = next.done ? encoder.end() : encoder.push(next.value);
          ended = next.done === true;
          for (const b of bytes) controller.enqueue(b);
          if (bytes.length > 0) return;
          await yieldToEventLoop();
        }
      },
      cancel() {
        pages.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Opens a report for the merchant (the one use case of the route): checks the range first, so
 * a bad request is a 400 before any byte is sent, then returns the stream to send.
 */
export function openReport(db: Db, merchant: Merchant, req: ReportRequest): OpenReport {
  const { fromMs, toMs } = reportRange(req);
  const format: ReportFormat = req.format;
  const query: ReportQuery = {
    merchantKey: merchant.merchantKey,
    col: req.dateSource === "lastModifiedDate" ? "updated_at" : "created_at",
    fromMs,
    toMs,
  };
  const sqlite = db.$client;
  return {
    filename: reportFilename(req, format),
    contentType:
      format === "XLS" ? "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" : "text/csv; charset=utf-8",
    body: sqlite.memory ? reportInThread(sqlite, query, format) : reportInWorker({ path: sqlite.name, query, format }),
  };
}
