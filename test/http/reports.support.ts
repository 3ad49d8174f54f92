/**
 * Shared by the report suites: the report call with header credentials, a CSV parser, and rows
 * written straight into the transactions table for the kinds the suites cannot create by API.
 */
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import type { Response } from "supertest";
import { transactions } from "../../src/db/schema/index.js";
import { BUILTIN, type TestSandbox } from "../helpers/harness.js";

export const REPORT = "/api/v1/report-generator/s2s";

export const HEADERS = [
  "transactionId",
  "type",
  "paymentMethod",
  "apmType",
  "requestId",
  "parentTransactionId",
  "subscriptionId",
  "status",
  "declineCode",
  "orderAmount",
  "orderCurrency",
  "processedAmount",
  "processedCurrency",
  "conversionRate",
  "cardMask",
  "createdAt",
  "lastModifiedAt",
];

/** supertest collecting the body as a Buffer whatever the content type (csv text or xlsx bytes). */
export function report(
  s: TestSandbox,
  body: unknown,
  creds: [string, string] = [BUILTIN.merchantKey, BUILTIN.merchantSecret],
  path = REPORT,
): Promise<Response> {
  return s.http
    .post(path)
    .set("x-merchant-key", creds[0])
    .set("x-merchant-secret", creds[1])
    .send(body as object)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => done(null, Buffer.concat(chunks)));
    });
}

/** The CSV body as records keyed by header (csv-parse: RFC 4180 quoting, CRLF). */
export function csvRecords(res: Response): Array<Record<string, string>> {
  const text = (res.body as Buffer).toString("utf8");
  return parse(text, { columns: true }) as Array<Record<string, string>>;
}

/** The CSV body as rows of fields, the header row first. */
export function csvRows(res: Response): string[][] {
  return parse((res.body as Buffer).toString("utf8")) as string[][];
}

type Row = typeof transactions.$inferInsert;
let n = 0;

/** Inserts one transaction row of any kind (defaults: a SUCCEED card payment of 10.00 USD by the built-in merchant). */
export function insertTx(s: TestSandbox, over: Partial<Row> & { createdAt: number }): string {
  n++;
  const id = over.id ?? `tx_direct${String(n).padStart(6, "0")}`;
  s.ctx.db
    .insert(transactions)
    .values({
      id,
      merchantKey: BUILTIN.merchantKey,
      kind: "card_payment",
      requestId: `direct-${n}`,
      status: "SUCCEED",
      orderCurrency: "USD",
      orderAmount: 1000,
      processedCurrency: "USD",
      processedAmount: 1000,
      conversionRate: "1",
      updatedAt: over.createdAt,
      ...over,
    })
    .run();
  return id;
}

/** The XLS body opened by exceljs, the library that wrote it. */
export async function workbook(res: Response): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  // exceljs's typings predate Node's generic Buffer
  await book.xlsx.load(res.body as Parameters<typeof book.xlsx.load>[0]);
  return book;
}
