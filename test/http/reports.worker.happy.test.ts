/**
 * The report off the request's thread (docs/performance.md): on a database file a worker thread reads one
 * snapshot and encodes it; on `:memory:` the request's thread does, page by page. Both must write
 * the same bytes for the same rows, and the worker's report must not see what is written while it
 * streams.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "csv-stringify/sync";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COLUMNS, csvField, isoTime, type ReportFormat, reportEncoder } from "../../src/modules/reports/reports.formats.js";
import { type ReportDbRow, type ReportQuery, toReportRow } from "../../src/modules/reports/reports.repo.js";
import { openReport, reportInThread } from "../../src/modules/reports/reports.service.js";
import { toIso } from "../../src/platform/clock.js";
import { BUILTIN, makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { csvRecords, insertTx, report, workbook } from "./reports.support.js";

let dir: string;
let s: TestSandbox;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "paysandbox-report-"));
  s = makeSandbox({ config: { db: join(dir, "sandbox.db") } });
});
afterEach(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const START = Date.UTC(2026, 0, 1);
const KINDS = ["card_payment", "card_charge", "subscription_charge", "refund", "card_payout", "apm_payment", "apm_payout"];

/** `n` rows of every kind, currency and status, some with text that CSV must quote and XML escape. */
function seed(n: number, from = 0): void {
  const odd = ["a,b", 'say "hi"', "two\r\nlines", "<x>&amp;</x>", "ctl\u0001\u001f", "ünï 💳", "=1+1", ""];
  s.ctx.db.$client.transaction(() => {
    for (let i = from; i < from + n; i++) {
      insertTx(s, {
        id: `tx_w${String(i).padStart(7, "0")}`,
        kind: KINDS[i % 7] as string,
        requestId: i % 5 === 0 ? (odd[(i / 5) % odd.length] as string) : `order-${i}`,
        status: i % 10 === 9 ? "FAILED" : "SUCCEED",
        declineCode: i % 10 === 9 ? 2 : null,
        cardBin: i % 7 < 5 ? "411111" : null,
        cardLast4: i % 7 < 5 ? "1111" : null,
        paymentMethod: i % 7 >= 5 ? "UPI_QR" : null,
        orderCurrency: ["USD", "JPY", "KWD"][i % 3] as string,
        orderAmount: 1 + ((i * 7919) % 100_000),
        processedCurrency: "EUR",
        processedAmount: 1 + (i % 90_000),
        conversionRate: i % 4 === 0 ? "0.92" : "1.0850",
        createdAt: START + i * 2500,
        updatedAt: START + i * 2500 + ((i * 37) % 5000),
      });
    }
  })();
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) parts.push(c);
  return Buffer.concat(parts);
}

const query = (col: ReportQuery["col"] = "created_at"): ReportQuery => ({
  merchantKey: BUILTIN.merchantKey,
  col,
  fromMs: START,
  toMs: START + 86_400_000 * 365,
});

describe("the worker thread and the request's thread write the same bytes", () => {
  for (const format of ["CSV", "XLS"] as const satisfies readonly ReportFormat[]) {
    it(`${format}: 2,345 rows over several pages and deflate pieces, by either time`, async () => {
      seed(2345);
      for (const [col, dateSource] of [
        ["created_at", "createdDate"],
        ["updated_at", "lastModifiedDate"],
      ] as const) {
        const res = await report(s, { dateFrom: "2026-01-01", dateTo: "2026-12-31", format, dateSource });
        expect(res.status).toBe(200);
        const inThread = await bytesOf(reportInThread(s.ctx.db.$client, query(col), format));
        expect(Buffer.compare(res.body as Buffer, inThread)).toBe(0);
      }
      if (format === "XLS") {
        const sheet = (await workbook(await report(s, { dateFrom: "2026-01-01", dateTo: "2026-12-31", format }))).worksheets[0];
        expect(sheet?.rowCount).toBe(2346);
        expect(sheet?.getRow(2).getCell(1).value).toBe("tx_w0000000");
        expect(sheet?.getRow(5 + 2).getCell(5).value).toBe('say "hi"');
        expect(sheet?.getRow(20 + 2).getCell(5).value).toBe("ctl"); // characters XML cannot hold are dropped
      } else {
        const rows = csvRecords(await report(s, { dateFrom: "2026-01-01", dateTo: "2026-12-31" }));
        expect(rows).toHaveLength(2345);
        expect(rows[10]?.requestId).toBe("two\r\nlines");
      }
    });
  }

  it("an empty range gives the same bytes too", async () => {
    for (const format of ["CSV", "XLS"] as const) {
      const res = await report(s, { dateFrom: "2025-01-01", dateTo: "2025-01-02", format });
      const inThread = await bytesOf(
        reportInThread(s.ctx.db.$client, { ...query(), fromMs: Date.UTC(2025, 0, 1), toMs: Date.UTC(2025, 0, 3) - 1 }, format),
      );
      expect(Buffer.compare(res.body as Buffer, inThread)).toBe(0);
    }
  });
});

describe("one snapshot (WAL read transaction in the worker)", () => {
  it("rows written and changed while the report streams are not in it", async () => {
    seed(20_000);
    const merchant = s.ctx.merchants.byKey(BUILTIN.merchantKey);
    if (!merchant) throw new Error("no built-in merchant");
    const body = openReport(s.ctx.db, merchant, {
      dateFrom: "2026-01-01",
      dateTo: "2026-12-31",
      dateSource: "lastModifiedDate",
      format: "CSV",
    }).body;
    const reader = body.getReader();
    const parts: Uint8Array[] = [];
    const first = await reader.read(); // the worker has begun: it holds at most a few chunks ahead
    if (first.value) parts.push(first.value);
    // while it streams: a new row at the end of the range, and an early row moved to the end
    seed(1, 30_000);
    s.ctx.db.$client.prepare("UPDATE transactions SET updated_at = ? WHERE id = 'tx_w0000001'").run(START + 40_000 * 2500);
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      parts.push(next.value);
    }
    const ids = csvRecords({ body: Buffer.concat(parts) } as Parameters<typeof csvRecords>[0]).map((r) => r.transactionId);
    expect(ids).toHaveLength(20_000);
    expect(ids).not.toContain("tx_w0030000");
    expect(ids.filter((id) => id === "tx_w0000001")).toHaveLength(1);
    expect(ids.indexOf("tx_w0000001")).toBeLessThan(10);
  });
});

describe("CSV fields", () => {
  it("are quoted exactly as csv-stringify quotes them with the report's options", () => {
    const options = { record_delimiter: "windows" as const, quoted_match: ["\n", "\r"] };
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('"', ",", "\r", "\n", "\r\n", " ", "=x", 'a"b,c')), { minLength: 1 }),
        (fields) => {
          expect(`${fields.map(csvField).join(",")}\r\n`).toBe(stringify([fields], options));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("CSV lines", () => {
  it("are, straight from database rows, each column's text through csvField", () => {
    const text = fc.oneof(fc.string(), fc.constantFrom('"', ",", "\r\n", "a,b", 'say "hi"', "ünï 💳", ""));
    const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
    const currency = fc.constantFrom("USD", "EUR", "JPY", "ISK", "KWD", "BHD", "CLF", "UYW");
    const row: fc.Arbitrary<ReportDbRow> = fc.tuple(
      text,
      fc.constantFrom(...KINDS, "unknown_kind", "odd,kind"),
      maybe(text),
      maybe(text),
      maybe(text),
      maybe(text),
      text,
      maybe(fc.integer({ min: 0, max: 999 })),
      fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.maxSafeNat()),
      currency,
      fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.maxSafeNat()),
      currency,
      fc.oneof(fc.constantFrom("1", "0.92", "1.0837"), text),
      maybe(fc.oneof(fc.constant("411111"), text)),
      maybe(fc.oneof(fc.constant("1111"), text)),
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.integer({ min: 0, max: 4_102_444_800_000 }),
      fc.integer(),
      maybe(fc.integer({ min: 12, max: 19 })),
    );
    const line = (r: ReportDbRow) => `${COLUMNS.map((c) => csvField(c.text(toReportRow(r)))).join(",")}\r\n`;
    const header = `${COLUMNS.map((c) => c.header).join(",")}\r\n`;
    fc.assert(
      fc.property(fc.array(row, { maxLength: 20 }), (rows) => {
        const encoder = reportEncoder("CSV");
        const bytes = Buffer.concat([...encoder.push(rows), ...encoder.end()]).toString("utf8");
        expect(bytes).toBe(header + rows.map(line).join(""));
      }),
      { numRuns: 500 },
    );
  });
});

describe("CSV chunks", () => {
  it("hold the text's UTF-8 however it falls across them (characters of 1 to 4 bytes, lone surrogates)", () => {
    const base: ReportDbRow = [
      "tx_1",
      "card_payment",
      null,
      "",
      null,
      null,
      "SUCCEED",
      null,
      100,
      "USD",
      100,
      "USD",
      "1",
      null,
      null,
      START,
      START,
      1,
      null,
    ];
    const piece = fc.constantFrom("a", "ü", "€", "💳", "\ud83d", "\udcb3", '"', ",");
    const row = fc.tuple(fc.array(piece, { maxLength: 50 }), fc.nat({ max: 40_000 })).map(([pieces, n]): ReportDbRow => {
      const r = [...base] as ReportDbRow;
      r[3] = pieces.join("").repeat(Math.ceil(n / Math.max(1, pieces.length)));
      return r;
    });
    const line = (r: ReportDbRow) => `${COLUMNS.map((c) => csvField(c.text(toReportRow(r)))).join(",")}\r\n`;
    const header = `${COLUMNS.map((c) => c.header).join(",")}\r\n`;
    fc.assert(
      fc.property(fc.array(fc.array(row, { maxLength: 6 }), { maxLength: 6 }), (pages) => {
        const encoder = reportEncoder("CSV");
        const chunks: Buffer[] = [];
        for (const page of pages) chunks.push(...(encoder.push(page) as Buffer[]));
        chunks.push(...(encoder.end() as Buffer[]));
        const text = header + pages.flat().map(line).join("");
        expect(Buffer.concat(chunks).equals(Buffer.from(text, "utf8"))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

describe("ISO times", () => {
  it("isoTime writes what toIso (Date#toISOString) writes, for any ms", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.integer({ min: 0, max: 4_102_444_800_000 })), (ms) => {
        expect(isoTime(ms)).toBe(toIso(ms));
      }),
      { numRuns: 5000 },
    );
    for (const ms of [0, -1, 86_399_999, 86_400_000, Date.UTC(2026, 0, 1, 23, 59, 59, 999), 253402300799999, -62167219200000])
      expect(isoTime(ms)).toBe(toIso(ms));
  });
});
