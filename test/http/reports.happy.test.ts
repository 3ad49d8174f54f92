import type ExcelJS from "exceljs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REPORT_PAGE_ROWS } from "../../src/modules/reports/reports.service.js";
import { makeSandbox, sandboxWithReceiver, T0, type TestSandbox } from "../helpers/harness.js";
import type { Receiver } from "../helpers/receiver.js";
import { cardPaymentBody, threeDsBody } from "./payments.body.js";
import { csvRecords, csvRows, HEADERS, insertTx, report, workbook } from "./reports.support.js";

let s: TestSandbox;
let receiver: Receiver;

beforeEach(async () => {
  ({ s, receiver } = await sandboxWithReceiver());
});

// a test may replace s with a sandbox of its own: that one is closed
afterEach(async () => {
  await s.close();
  await receiver.close();
});

const at = (iso: string) => Date.parse(iso);
const ids = (res: Awaited<ReturnType<typeof report>>) => csvRecords(res).map((r) => r.transactionId);

describe("the date range (docs/report.md: UTC, both ends included, a bare dateTo is the end of its day)", () => {
  beforeEach(() => {
    insertTx(s, { id: "tx_before", createdAt: at("2026-01-09T23:59:59.000Z") });
    insertTx(s, { id: "tx_from", createdAt: at("2026-01-10T00:00:00.000Z") });
    insertTx(s, { id: "tx_last_second", createdAt: at("2026-01-12T23:59:59.000Z") });
    insertTx(s, { id: "tx_last_ms", createdAt: at("2026-01-12T23:59:59.999Z") });
    insertTx(s, { id: "tx_after", createdAt: at("2026-01-13T00:00:00.000Z") });
  });

  it("bare dates: the row at exactly dateFrom and the last second of dateTo are in; one second outside is out", async () => {
    const res = await report(s, { dateFrom: "2026-01-10", dateTo: "2026-01-12" });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(["tx_from", "tx_last_second", "tx_last_ms"]);
  });

  it("times: both ends included to the second", async () => {
    expect(ids(await report(s, { dateFrom: "2026-01-10 00:00:00", dateTo: "2026-01-12 23:59:59" }))).toEqual([
      "tx_from",
      "tx_last_second",
      "tx_last_ms",
    ]);
    expect(ids(await report(s, { dateFrom: "2026-01-10 00:00:01", dateTo: "2026-01-12 23:59:58" }))).toEqual([]);
    expect(ids(await report(s, { dateFrom: "2026-01-09 23:59:59", dateTo: "2026-01-10 00:00:00" }))).toEqual([
      "tx_before",
      "tx_from",
    ]);
  });

  it("one day, and an empty range, still give the header row", async () => {
    expect(ids(await report(s, { dateFrom: "2026-01-13", dateTo: "2026-01-13" }))).toEqual(["tx_after"]);
    const empty = await report(s, { dateFrom: "2025-01-01", dateTo: "2025-12-31" });
    expect(csvRows(empty)).toEqual([HEADERS]);
  });
});

describe("the rows", () => {
  it("one per transaction of every kind, docs/report.md columns in order, exact major units, ISO times, oldest first", async () => {
    const token = await s.token();
    const paid = await s.http
      .post("/api/v1/payments/card")
      .set("authorization", token)
      .send(cardPaymentBody({ amount: "20.50", currency: "USD" }))
      .expect(200);
    const declined = await s.http
      .post("/api/v1/payments/card")
      .set("authorization", token)
      .send(cardPaymentBody({ card: { number: "4000000000000002" } }))
      .expect(200);
    const base = T0 + 60_000;
    insertTx(s, {
      id: "tx_refund",
      kind: "refund",
      parentId: paid.body.transactionId,
      orderAmount: 550,
      processedAmount: 550,
      cardBin: "411111",
      cardLast4: "1111",
      createdAt: base,
      updatedAt: base + 1000,
    });
    // biome-ignore format: one row a line
    insertTx(s, { id: "tx_payout", kind: "card_payout", orderCurrency: "JPY", orderAmount: 1500, processedCurrency: "JPY", processedAmount: 1500, cardBin: "550000", cardLast4: "0004", createdAt: base + 1 });
    // biome-ignore format: one row a line
    insertTx(s, { id: "tx_apm", kind: "apm_payment", paymentMethod: "UPI_QR", orderCurrency: "KWD", orderAmount: 1234, processedCurrency: "EUR", processedAmount: 3701, conversionRate: "2.99918", createdAt: base + 2 });
    insertTx(s, { id: "tx_apm_out", kind: "apm_payout", paymentMethod: "PIX", status: "PENDING", createdAt: base + 3 });
    insertTx(s, { id: "tx_charge", kind: "card_charge", createdAt: base + 4, status: "FAILED", declineCode: 5 });
    insertTx(s, { id: "tx_sub", kind: "subscription_charge", subscriptionId: "sub_1", createdAt: base + 5 });

    const res = await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe('attachment; filename="report-2026-01-15-2026-01-15.csv"');
    const text = (res.body as Buffer).toString("utf8");
    expect(text.split("\r\n")[0]).toBe(HEADERS.join(","));
    const rows = csvRows(res);
    expect(rows[0]).toEqual(HEADERS);
    const t = (ms: number) => new Date(ms).toISOString();
    const rid = (r: { body: { transactionId: string } }) =>
      (
        s.ctx.db.$client.prepare("SELECT request_id FROM transactions WHERE id = ?").get(r.body.transactionId) as {
          request_id: string;
        }
      ).request_id;
    // biome-ignore format: a table, one row a line
    expect(rows.slice(1)).toEqual([
      [paid.body.transactionId, "PAYMENT", "card", "", rid(paid), "", "", "SUCCEED", "", "20.50", "USD", "20.50", "USD", "1", "411111******1111", t(T0), t(T0)],
      [declined.body.transactionId, "PAYMENT", "card", "", rid(declined), "", "", "FAILED", "2", "20.50", "USD", "20.50", "USD", "1", "400000******0002", t(T0), t(T0)],
      ["tx_refund", "REFUND", "card", "", expect.any(String), paid.body.transactionId, "", "SUCCEED", "", "5.50", "USD", "5.50", "USD", "1", "411111******1111", t(base), t(base + 1000)],
      ["tx_payout", "PAYOUT", "card", "", expect.any(String), "", "", "SUCCEED", "", "1500", "JPY", "1500", "JPY", "1", "550000******0004", t(base + 1), t(base + 1)],
      ["tx_apm", "PAYMENT", "apm", "UPI_QR", expect.any(String), "", "", "SUCCEED", "", "1.234", "KWD", "37.01", "EUR", "2.99918", "", t(base + 2), t(base + 2)],
      ["tx_apm_out", "PAYOUT", "apm", "PIX", expect.any(String), "", "", "PENDING", "", "10.00", "USD", "10.00", "USD", "1", "", t(base + 3), t(base + 3)],
      ["tx_charge", "ONE_CLICK", "card", "", expect.any(String), "", "", "FAILED", "5", "10.00", "USD", "10.00", "USD", "1", "", t(base + 4), t(base + 4)],
      ["tx_sub", "SUBSCRIPTION_CHARGE", "card", "", expect.any(String), "", "sub_1", "SUCCEED", "", "10.00", "USD", "10.00", "USD", "1", "", t(base + 5), t(base + 5)],
    ]);
  });

  it("lastModifiedDate follows a later change: 3DS payments answered, or timed out, after midnight", async () => {
    await s.close();
    s = makeSandbox({ start: at("2026-01-15T23:50:00.000Z") });
    const token = await s.token();
    const pay3ds = async () => {
      const made = await s.http
        .post("/api/v1/payments/card")
        .set("authorization", token)
        .send(threeDsBody(`${receiver.url}/cb`));
      expect(made.body.transactionStatus).toBe("CUSTOMER_VERIFICATION");
      return made.body.transactionId as string;
    };
    const answered = await pay3ds();
    const timedOut = await pay3ds();
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT20M" }).expect(200);
    expect((await s.http.post(`/sandbox/3ds/${answered}`).type("form").send({ outcome: "success" })).status).toBe(303);
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT20M" }).expect(200); // the other one's 30 minutes run out

    const created = csvRecords(await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15" }));
    expect(created.map((r) => [r.transactionId, r.status, r.declineCode, r.createdAt, r.lastModifiedAt])).toEqual([
      [answered, "SUCCEED", "", "2026-01-15T23:50:00.000Z", "2026-01-16T00:10:00.000Z"],
      [timedOut, "FAILED", "4", "2026-01-15T23:50:00.000Z", "2026-01-16T00:20:00.000Z"],
    ]);
    expect(ids(await report(s, { dateFrom: "2026-01-16", dateTo: "2026-01-16" }))).toEqual([]);
    const modified = { dateFrom: "2026-01-16", dateTo: "2026-01-16", dateSource: "lastModifiedDate" };
    expect(ids(await report(s, modified))).toEqual([answered, timedOut]);
    expect(ids(await report(s, { ...modified, dateTo: "2026-01-16 00:19:59" }))).toEqual([answered]);
    expect(ids(await report(s, { ...modified, dateFrom: "2026-01-15", dateTo: "2026-01-15" }))).toEqual([]);
  });

  it("orders by the chosen time, ties in insertion order", async () => {
    insertTx(s, { id: "tx_b", createdAt: T0, updatedAt: T0 + 5 });
    insertTx(s, { id: "tx_a", createdAt: T0, updatedAt: T0 + 1 });
    insertTx(s, { id: "tx_c", createdAt: T0 - 1, updatedAt: T0 + 5 });
    expect(ids(await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15" }))).toEqual(["tx_c", "tx_b", "tx_a"]);
    expect(ids(await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15", dateSource: "lastModifiedDate" }))).toEqual([
      "tx_a",
      "tx_b",
      "tx_c",
    ]);
  });

  it("pages: every row once, in order, across page boundaries that fall inside runs of equal times", async () => {
    const total = REPORT_PAGE_ROWS * 2 + 345;
    const insert = s.ctx.db.$client.prepare(
      `INSERT INTO transactions (id, merchant_key, kind, status, order_currency, order_amount, processed_currency,
        processed_amount, conversion_rate, created_at, updated_at) VALUES (?, 'sandbox_merchant_key', 'card_payment',
        'SUCCEED', 'USD', 100, 'USD', 100, '1', ?, ?)`,
    );
    const expected: string[] = [];
    s.ctx.db.$client.transaction(() => {
      for (let i = 0; i < total; i++) {
        const id = `tx_bulk${String(i).padStart(6, "0")}`;
        // runs of 700 rows share one created_at, so pages end mid-run
        insert.run(id, T0 + Math.floor(i / 700), T0);
        expected.push(id);
      }
    })();
    expect(ids(await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15" }))).toEqual(expected);
    expect(ids(await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15", dateSource: "lastModifiedDate" }))).toEqual(
      expected,
    );
    const sheet = (await workbook(await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15", format: "XLS" })))
      .worksheets[0];
    expect(sheet?.rowCount).toBe(total + 1);
    expect([2, total + 1].map((r) => sheet?.getRow(r).getCell(1).value)).toEqual([expected[0], expected[total - 1]]);
  });

  it("answers under /v1 too, and names a timed range's file safely", async () => {
    insertTx(s, { id: "tx_one", createdAt: T0 });
    const res = await report(
      s,
      { dateFrom: "2026-01-15 10:00:00", dateTo: "2026-01-15 13:30:00" },
      undefined,
      "/v1/report-generator/s2s",
    );
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(["tx_one"]);
    expect(res.headers["content-disposition"]).toBe('attachment; filename="report-2026-01-15_10-00-00-2026-01-15_13-30-00.csv"');
  });
});

describe("CSV and XLS agree", () => {
  it("a field with a comma, a quote and a newline round-trips through RFC 4180 CSV and the workbook", async () => {
    const tricky = 'order 7, "gift"\nsecond line; é ü 漢字';
    // CR LF inside a field too (CSV only: XML, hence the workbook, reads every CR LF as LF)
    const crlf = "first\r\nsecond,third";
    insertTx(s, { id: "tx_tricky", requestId: tricky, createdAt: T0 });
    insertTx(s, { id: "tx_crlf", requestId: crlf, createdAt: T0 + 1 });
    const res = await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15" });
    expect((res.body as Buffer).toString("utf8")).toContain('"order 7, ""gift""\nsecond line; é ü 漢字"');
    expect(csvRecords(res).map((r) => r.requestId)).toEqual([tricky, crlf]);
    const book = await workbook(await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15", format: "XLS" }));
    expect(book.worksheets[0]?.getRow(2).getCell(5).value).toBe(tricky);
  });

  it("the workbook's typed cells match the CSV, cell by cell", async () => {
    const token = await s.token();
    await s.http.post("/api/v1/payments/card").set("authorization", token).send(cardPaymentBody()).expect(200);
    insertTx(s, { kind: "refund", parentId: "tx_000001", orderAmount: 1, createdAt: T0 + 1, updatedAt: T0 + 2 });
    // biome-ignore format: one row a line
    insertTx(s, { kind: "card_payout", orderCurrency: "JPY", orderAmount: 1500, processedCurrency: "JPY", processedAmount: 1500, cardBin: "550000", cardLast4: "0004", createdAt: T0 + 3 });
    // biome-ignore format: one row a line
    insertTx(s, { kind: "apm_payment", paymentMethod: "UPI_QR", orderCurrency: "KWD", orderAmount: 1234, processedCurrency: "EUR", processedAmount: 3701, conversionRate: "2.99918", createdAt: T0 + 4 });
    insertTx(s, { kind: "card_charge", status: "FAILED", declineCode: 5, createdAt: T0 + 5 });
    const range = { dateFrom: "2026-01-15", dateTo: "2026-01-15" };
    const csv = csvRows(await report(s, range));
    const xls = await report(s, { ...range, format: "XLS" });
    expect(xls.status).toBe(200);
    expect(xls.headers["content-type"]).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(xls.headers["content-disposition"]).toBe('attachment; filename="report-2026-01-15-2026-01-15.xlsx"');

    const book = await workbook(xls);
    expect(book.worksheets).toHaveLength(1);
    const sheet = book.worksheets[0] as ExcelJS.Worksheet;
    expect(sheet.rowCount).toBe(csv.length);
    expect(csv.length).toBe(6);
    const col = (name: string) => HEADERS.indexOf(name) + 1;
    const numeric = new Set(["declineCode", "orderAmount", "processedAmount", "conversionRate"]);
    const times = new Set(["createdAt", "lastModifiedAt"]);
    for (let r = 0; r < csv.length; r++) {
      const row = sheet.getRow(r + 1);
      HEADERS.forEach((name, i) => {
        const text = csv[r]?.[i] ?? "";
        const value = row.getCell(i + 1).value;
        if (r === 0) expect(value).toBe(text);
        else if (text === "") expect(value).toBeNull();
        else if (numeric.has(name)) expect(value).toBe(Number(text));
        else if (times.has(name)) expect((value as Date).toISOString()).toBe(text);
        else expect(value).toBe(text);
      });
    }
    // amounts show their currency's digits; times show as dates
    expect(sheet.getRow(2).getCell(col("orderAmount")).numFmt).toBe("0.00");
    expect(sheet.getRow(4).getCell(col("orderAmount")).numFmt).toBe("0");
    expect(sheet.getRow(5).getCell(col("orderAmount")).numFmt).toBe("0.000");
    expect(sheet.getRow(2).getCell(col("createdAt")).numFmt).toMatch(/^yyyy-mm-dd hh:mm:ss/);
    expect(sheet.getRow(1).font?.bold).toBe(true);
    expect(sheet.getColumn(col("requestId")).width).toBeGreaterThanOrEqual(20);
  });
});
