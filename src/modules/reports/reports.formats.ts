/**
 * The report's two file formats (docs/report.md): CSV (RFC 4180, UTF-8, CRLF,
 * a header row) and an Office Open XML workbook (.xlsx, one sheet, typed cells, reports.xlsx.ts).
 * The columns are data (COLUMNS): each says its CSV text and its cell; both formats read the
 * same list, so they cannot drift apart. The CSV encoder writes a line straight from the database
 * row (csvRow, a million-row report's hottest loop); a test holds it to COLUMNS' text.
 *
 * A format is an encoder: rows in, bytes out, synchronously, the same bytes whatever the pages the
 * rows came in (the report's worker thread and the request's own thread must agree byte for byte).
 */
import { cardMask } from "../../platform/cards.js";
import { toIso } from "../../platform/clock.js";
import { digitsOf, formatAmount } from "../../platform/money.js";
import { KIND_FACTS, type TransactionKind } from "../transactions/kinds.js";
import { type ReportDbRow, type ReportRow, toReportRow } from "./reports.repo.js";
import { type Encoder, type SheetColumn, xlsxEncoder } from "./reports.xlsx.js";

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

/** The report's columns, in docs/report.md's order (CSV fields and .xlsx cells). */
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

/** A format's encoder takes the database's rows as read (`.raw()` arrays, reports.repo.ts). */
export type ReportEncoder = Encoder<ReportDbRow>;

export function reportEncoder(format: ReportFormat): ReportEncoder {
  if (format === "CSV") return csvEncoder();
  const xlsx = xlsxEncoder(COLUMNS, "Transactions");
  return { push: (rows) => xlsx.push(rows.map(toReportRow)), end: () => xlsx.end() };
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

/** A text column's field: what `COLUMNS[i].text` then `csvField` give, without the row object. */
const csvText = (v: string | number | null): string =>
  v === null ? "" : typeof v === "string" ? (NEEDS_QUOTES.test(v) ? csvField(v) : v) : String(v);

/** Minor digits per currency, looked up once each (digitsOf refuses an unknown one, as formatAmount does). */
const DIGITS = new Map<string, number>();

/**
 * `formatAmount(minor, currency)` by integer arithmetic for the usual 0–3 digits: the remainder is
 * exact for any safe integer, and so is the quotient of the exact multiple left.
 */
function csvAmount(minor: number, currency: string): string {
  let digits = DIGITS.get(currency);
  if (digits === undefined) {
    digits = digitsOf(currency);
    DIGITS.set(currency, digits);
  }
  if (digits === 0) return String(minor);
  if (digits > 3 || !Number.isSafeInteger(minor) || minor < 0) return formatAmount(minor, currency);
  const unit = digits === 1 ? 10 : digits === 2 ? 100 : 1000;
  const fraction = minor % unit;
  return `${(minor - fraction) / unit}.${(PAD[fraction] as string).slice(3 - digits)}`;
}

/**
 * One report line straight from a database row: the same text as COLUMNS' `text` through
 * `csvField` (test/http/reports.worker.happy.test.ts checks), without a row object or a closure
 * per field: a million-row report's hottest loop. Amounts, times and the kind's constants hold no
 * character that needs quotes.
 */
function csvRow(r: ReportDbRow): string {
  const facts = KIND_FACTS[r[1] as TransactionKind] as (typeof KIND_FACTS)[TransactionKind] | undefined;
  const mask = r[13] && r[14] ? csvText(cardMask(r[13], r[14], r[18])) : "";
  return `${csvText(r[0])},${facts ? facts.reportType : csvText(r[1])},${facts ? facts.paymentMethod : ""},${csvText(r[2])},${csvText(r[3])},${csvText(r[4])},${csvText(r[5])},${csvText(r[6])},${csvText(r[7])},${csvAmount(r[8], r[9])},${csvText(r[9])},${csvAmount(r[10], r[11])},${csvText(r[11])},${csvText(r[12])},${mask},${isoTime(r[15])},${isoTime(r[16])}\r\n`;
}

const utf8 = new TextEncoder();

function csvEncoder(): ReportEncoder {
  // Each push's text is made bytes at once: the lines' strings (and the row values they point at)
  // then die young, instead of surviving scavenges until a chunk is full (GC was a third of the
  // time). The bytes are written straight into the chunk being filled, a buffer of its own that
  // the worker moves to the request's thread when full: no piece per push to copy again into a
  // chunk (Buffer.concat) and leave to the GC (~3% of a 1,000,000-row CSV's CPU).
  let chunk = Buffer.allocUnsafeSlow(CSV_CHUNK);
  let size = 0;
  let out: Buffer[] = [];
  const write = (text: string) => {
    for (;;) {
      const { read, written } = utf8.encodeInto(text, chunk.subarray(size));
      size += written;
      if (read === text.length) return;
      out.push(size === chunk.length ? chunk : chunk.subarray(0, size));
      chunk = Buffer.allocUnsafeSlow(CSV_CHUNK);
      size = 0;
      text = text.slice(read);
    }
  };
  const taken = (): Buffer[] => {
    const full = out;
    out = [];
    return full;
  };
  write(csvLine(REPORT_HEADERS));
  return {
    push(rows) {
      let text = "";
      for (const r of rows) text += csvRow(r);
      write(text);
      return taken();
    },
    end() {
      if (size > 0) out.push(chunk.subarray(0, size)); // the last push: the chunk is not written again
      size = 0;
      return taken();
    },
  };
}
