import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN } from "../helpers/harness.js";
import { type RunningServer, startServer } from "../helpers/server.js";
import { fetchToken } from "../helpers/token.js";
import { cardPaymentBody } from "../http/payments.body.js";
import { HEADERS } from "../http/reports.support.js";

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ args: ["--start-time", "2026-01-15T12:00:00Z"] });
});
afterAll(async () => {
  await server?.stop();
});

const reportCall = (body: object) =>
  fetch(`${server.url}/api/v1/report-generator/s2s`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-merchant-key": BUILTIN.merchantKey,
      "x-merchant-secret": BUILTIN.merchantSecret,
    },
    body: JSON.stringify(body),
  });

describe("the report on the real server (docs/report.md examples)", () => {
  it("streams a payment as CSV and as an .xlsx workbook", async () => {
    const token = await fetchToken(server.url);
    const paid = await fetch(`${server.url}/api/v1/payments/card`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token },
      body: JSON.stringify(cardPaymentBody()),
    });
    const { transactionId } = (await paid.json()) as { transactionId: string };

    const csv = await reportCall({ dateFrom: "2026-01-01", dateTo: "2026-12-31" });
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe(HEADERS.join(","));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(new RegExp(`^${transactionId},PAYMENT,card,,`));

    // exceljs is loaded from node_modules on the first workbook (external to the bundle)
    const xls = await reportCall({ dateFrom: "2026-01-01 00:00:00", dateTo: "2026-12-31", format: "XLS" });
    expect(xls.status).toBe(200);
    expect(xls.headers.get("content-disposition")).toBe('attachment; filename="report-2026-01-01_00-00-00-2026-12-31.xlsx"');
    const bytes = Buffer.from(await xls.arrayBuffer());
    expect(bytes.subarray(0, 2).toString()).toBe("PK");
    const ExcelJS = (await import("exceljs")).default;
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes as unknown as Parameters<typeof book.xlsx.load>[0]);
    expect(book.worksheets[0]?.getRow(2).getCell(1).value).toBe(transactionId);

    const bad = await reportCall({ dateFrom: "2026-01-01" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Missing required field: dateTo" });
  });
});
