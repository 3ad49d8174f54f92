/**
 * The report's two file formats (CONTRACT §3 "Transaction report"): CSV (RFC 4180, UTF-8, CRLF,
 * a header row) and an Office Open XML workbook (.xlsx, one sheet, typed cells, reports.xlsx.ts).
 * The columns are data (COLUMNS): each says its CSV text and its cell; both formats read the
 * same list, so they cannot drift apart.
 *
 * A format is an encoder: rows in, bytes out, synchronously, the same bytes whatever the pages the
 * rows came in (the report's worker thread and the request's own thread must agree byte for byte).
 */
import { toIso } from "../../platform/clock.js";
import { digitsOf, formatAmount } from "../../platform/money.js";
import { type Encoder, type SheetColumn, xlsxEncoder } from "./reports.xlsx.js";

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

export type Column = SheetColumn<ReportRow> & { header: keyof ReportRow };

const AMOUNT_FMT: Record<number, string> = { 0: "0", 1: "0.0", 2: "0.00", 3: "0.000", 4: "0.0000" };
const TIME_FMT = "yyyy-mm-dd hh:mm:ss.000";
/** Excel's serial day number of the Unix epoch (1900 date system). */
const EXCEL_EPOCH_DAYS = 25569;

const text = (header: keyof ReportRow, width: number): Column => ({
  header,
  width,
  text: (r) => (r[header] === null ? "" : String(r[header])),
});
const amount = (header: "orderAmount" | "processedAmount", currency: "orderCurrency" | "processedCurrency"): Column => ({
  header,
  width: 15,
  // exact major units from integers (money.ts), never through a float
  text: (r) => formatAmount(r[header], r[currency]),
  number: (r) => formatAmount(r[header], r[currency]),
  numFmt: "0.00",
  cellFmt: (r) => AMOUNT_FMT[digitsOf(r[currency])] ?? "0.00",
});
const DAY_MS = 86_400_000;
const PAD = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
let isoDay = Number.NaN;
let isoDayPrefix = "";

/**
 * `toIso(ms)` (platform/clock.ts: `new Date(ms).toISOString()`) at a fifth of its cost, a report's
 * hottest column pair: the date part is made once per day, the time of day by integer arithmetic.
 * The same text for every integer ms (test/http/reports.worker.happy.test.ts checks).
 */
export function isoTime(ms: number): string {
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  if (day !== isoDay) {
    const iso = toIso(day);
    // years before 0 or after 9999 (±YYYYYY), or a fraction of a ms: as Date writes them
    if (iso.length !== 24 || !Number.isInteger(ms)) return toIso(ms);
    isoDay = day;
    isoDayPrefix = iso.slice(0, 11);
  }
  const t = ms - day;
  const secs = Math.floor(t / 1000);
  const mins = Math.floor(secs / 60);
  const hours = Math.floor(mins / 60);
  return `${isoDayPrefix}${(PAD[hours] as string).slice(1)}:${(PAD[mins % 60] as string).slice(1)}:${(PAD[secs % 60] as string).slice(1)}.${PAD[t % 1000]}Z`;
}

const time = (header: "createdAt" | "lastModifiedAt"): Column => ({
  header,
  width: 24,
  text: (r) => isoTime(r[header]),
  number: (r) => String(EXCEL_EPOCH_DAYS + r[header] / 86_400_000),
  numFmt: TIME_FMT,
});

/** The report's columns, in CONTRACT §3's order (CSV fields and .xlsx cells). */
export const COLUMNS: readonly Column[] = [
  text("transactionId", 24),
  text("type", 21),
  text("paymentMethod", 15),
  text("apmType", 14),
  text("requestId", 28),
  text("parentTransactionId", 24),
  text("subscriptionId", 24),
  text("status", 22),
  { ...text("declineCode", 12), number: (r) => (r.declineCode === null ? null : String(r.declineCode)), numFmt: "0" },
  amount("orderAmount", "orderCurrency"),
  text("orderCurrency", 14),
  amount("processedAmount", "processedCurrency"),
  text("processedCurrency", 18),
  {
    ...text("conversionRate", 15),
    number: (r) => {
      const n = Number(r.conversionRate);
      return Number.isFinite(n) ? String(n) : null;
    },
    numFmt: "0.########",
  },
  text("cardMask", 19),
  time("createdAt"),
  time("lastModifiedAt"),
];

export const REPORT_HEADERS = COLUMNS.map((c) => c.header);

export type ReportEncoder = Encoder<ReportRow>;

export function reportEncoder(format: ReportFormat): ReportEncoder {
  return format === "XLS" ? xlsxEncoder(COLUMNS, "Transactions") : csvEncoder();
}

/** Bytes of CSV text held before they are handed on (a chunk of the response). */
const CSV_CHUNK = 256 * 1024;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field as csv-stringify writes it with this report's options (`record_delimiter:
 * "windows"`, `quoted_match: ["\n", "\r"]`): quoted when it holds a comma, a quote, CR or LF, with
 * quotes doubled; as is otherwise (test/unit/reports.formats.happy.test.ts checks the two agree).
 */
export function csvField(s: string): string {
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const csvLine = (fields: readonly string[]): string => `${fields.map(csvField).join(",")}\r\n`;

function csvEncoder(): ReportEncoder {
  let held = csvLine(REPORT_HEADERS);
  const take = (): Buffer[] => {
    const out = held.length > 0 ? [Buffer.from(held, "utf8")] : [];
    held = "";
    return out;
  };
  return {
    push(rows) {
      for (const r of rows) {
        let line = "";
        for (let i = 0; i < COLUMNS.length; i++) {
          if (i > 0) line += ",";
          line += csvField((COLUMNS[i] as Column).text(r));
        }
        held += `${line}\r\n`;
      }
      return held.length >= CSV_CHUNK ? take() : [];
    },
    end: take,
  };
}
