/**
 * The report's two file formats (CONTRACT §3 "Transaction report"): CSV (RFC 4180, UTF-8, CRLF,
 * a header row) through csv-stringify, and an Office Open XML workbook (.xlsx, one sheet, typed
 * cells) through exceljs's streaming WorkbookWriter. The columns are data (COLUMNS): each says
 * its CSV text and its cell; both formats read the same list, so they cannot drift apart.
 * Both pull one page at a time and wait while the client is slower than the database.
 */
import { PassThrough, Readable, type Writable } from "node:stream";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { stringify } from "csv-stringify/sync";
import { toIso } from "../../platform/clock.js";
import { digitsOf, formatAmount, toMajorNumber } from "../../platform/money.js";

/** One row of the report, the columns of CONTRACT §3 in order (amounts in minor units, times in virtual ms). */
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

export type ReportFormat = "CSV" | "XLS";

type Cell = string | number | Date | null;

interface Column {
  header: keyof ReportRow;
  /** Excel column width, in characters. */
  width: number;
  text(r: ReportRow): string;
  cell(r: ReportRow): Cell;
  /** Excel number format of the column (a cell may override it: amounts follow their currency's digits). */
  numFmt?: string;
  cellFmt?(r: ReportRow): string | undefined;
}

const AMOUNT_FMT: Record<number, string> = { 0: "0", 1: "0.0", 2: "0.00", 3: "0.000", 4: "0.0000" };
const amountFmt = (currency: string) => {
  const digits = digitsOf(currency);
  return digits === 2 ? undefined : AMOUNT_FMT[digits];
};
const TIME_FMT = "yyyy-mm-dd hh:mm:ss.000";

const text = (header: keyof ReportRow, width: number): Column => ({
  header,
  width,
  text: (r) => (r[header] === null ? "" : String(r[header])),
  cell: (r) => r[header] as Cell,
});
const amount = (header: "orderAmount" | "processedAmount", currency: "orderCurrency" | "processedCurrency"): Column => ({
  header,
  width: 15,
  // exact major units from integers (money.ts), never through a float
  text: (r) => formatAmount(r[header], r[currency]),
  cell: (r) => toMajorNumber(r[header], r[currency]),
  numFmt: "0.00",
  cellFmt: (r) => amountFmt(r[currency]),
});
const time = (header: "createdAt" | "lastModifiedAt"): Column => ({
  header,
  width: 24,
  text: (r) => toIso(r[header]),
  cell: (r) => new Date(r[header]),
  numFmt: TIME_FMT,
});

/** The report's columns, in CONTRACT §3's order. */
export const COLUMNS: readonly Column[] = [
  text("transactionId", 24),
  text("type", 21),
  text("paymentMethod", 15),
  text("apmType", 14),
  text("requestId", 28),
  text("parentTransactionId", 24),
  text("subscriptionId", 24),
  text("status", 22),
  { ...text("declineCode", 12), numFmt: "0" },
  amount("orderAmount", "orderCurrency"),
  text("orderCurrency", 14),
  amount("processedAmount", "processedCurrency"),
  text("processedCurrency", 18),
  { ...text("conversionRate", 15), cell: (r) => Number(r.conversionRate), numFmt: "0.########" },
  text("cardMask", 19),
  time("createdAt"),
  time("lastModifiedAt"),
];

export const REPORT_HEADERS = COLUMNS.map((c) => c.header);

/** The report as a byte stream in the format asked for; `pages` is pulled only as fast as the client reads. */
export function reportStream(format: ReportFormat, pages: AsyncGenerator<ReportRow[]>): ReadableStream<Uint8Array> {
  return format === "XLS" ? xlsxStream(pages) : csvStream(pages);
}

const CSV_OPTIONS = { record_delimiter: "windows", quoted_match: ["\n", "\r"] };
const encoder = new TextEncoder();

/**
 * CSV as a pull stream: the HTTP layer asks for the next chunk only when the socket has taken
 * the last one (@hono/node-server waits for 'drain'), so at most one page is in memory.
 */
function csvStream(pages: AsyncGenerator<ReportRow[]>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(stringify([REPORT_HEADERS], CSV_OPTIONS)));
      },
      async pull(controller) {
        const next = await pages.next();
        if (next.done) {
          controller.close();
          return;
        }
        controller.enqueue(
          encoder.encode(
            stringify(
              next.value.map((r) => COLUMNS.map((c) => c.text(r))),
              CSV_OPTIONS,
            ),
          ),
        );
      },
      async cancel() {
        await pages.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}

type ExcelJs = typeof import("exceljs");
let excel: Promise<ExcelJs> | undefined;
/** exceljs is large: loaded on the first workbook, so a start that never sends one never pays for it. */
const loadExcel = async (): Promise<ExcelJs> => {
  excel ??= import("exceljs").then((m) => ((m as { default?: ExcelJs }).default ?? m) as ExcelJs);
  return excel;
};

const STYLES = new Map<string | undefined, { numFmt?: string }>();
/** One style object per number format, shared by every cell that has it. */
function styleOf(numFmt: string | undefined): { numFmt?: string } {
  let style = STYLES.get(numFmt);
  if (!style) {
    style = numFmt ? { numFmt } : {};
    STYLES.set(numFmt, style);
  }
  return style;
}

/**
 * Resolves when `s` has drained its write queue, or is gone. Archiver's streams come from the
 * readable-stream package (v3), which has no `writableNeedDrain`: its state says the same.
 */
async function drained(s: Writable | undefined): Promise<void> {
  const needDrain =
    s?.writableNeedDrain ?? (s as { _writableState?: { needDrain?: boolean } } | undefined)?._writableState?.needDrain;
  if (!s || !needDrain || s.destroyed) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      for (const event of ["drain", "close", "error"]) s.off(event, done);
      resolve();
    };
    for (const event of ["drain", "close", "error"]) s.on(event, done);
  });
}

/**
 * The workbook through exceljs's streaming writer into a PassThrough that the response reads.
 * Backpressure: exceljs's sheet stream (lib/utils/stream-buf.js) writes into archiver's input
 * stream without looking at write()'s answer, so after each page the producer waits on that
 * stream itself; it fills when the deflate stream behind it, archiver's output (the PassThrough)
 * or the socket is full, so the wait reaches back to the client. Without it, a 1M-row workbook
 * buffered ~600 MB.
 */
function xlsxStream(pages: AsyncGenerator<ReportRow[]>): ReadableStream<Uint8Array> {
  const out = new PassThrough({ highWaterMark: 256 * 1024 });
  out.on("error", () => undefined); // a client gone mid-stream is not a server error
  const produce = async () => {
    const ExcelJS = await loadExcel();
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
    const ws = wb.addWorksheet("Transactions", { views: [{ state: "frozen", ySplit: 1 }] });
    ws.columns = COLUMNS.map((c) => ({
      header: c.header,
      key: c.header,
      width: c.width,
      style: c.numFmt ? { numFmt: c.numFmt } : {},
    }));
    const header = ws.getRow(1);
    header.font = { bold: true };
    header.commit();
    for await (const page of pages) {
      if (out.destroyed) return;
      for (const r of page) {
        const row = ws.addRow(COLUMNS.map((c) => c.cell(r)));
        // shared style objects: exceljs caches a style's id by object identity, and otherwise
        // renders every cell's style to XML to find its id (most of a row's cost)
        for (let i = 0; i < COLUMNS.length; i++) {
          const c = COLUMNS[i] as Column;
          row.getCell(i + 1).style = styleOf(c.cellFmt?.(r) ?? c.numFmt);
        }
        row.commit();
      }
      const sheet = (ws as unknown as { stream?: { pipes?: Writable[] } }).stream;
      await drained(sheet?.pipes?.[0]);
      await drained(out);
      await yieldToEventLoop();
    }
    ws.commit();
    await wb.commit();
  };
  produce().catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  const web = Readable.toWeb(out) as unknown as ReadableStream<Uint8Array>;
  return web;
}
