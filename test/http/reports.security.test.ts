import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, T0, type TestSandbox } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";
import { csvRecords, insertTx, report, workbook } from "./reports.support.js";

const OTHER = { merchantKey: "other_key", merchantSecret: "other_secret", mid: "other-mid", merchantId: 4001, accountId: 4002 };

let s: TestSandbox;
beforeEach(async () => {
  s = makeSandbox();
  await s.http
    .post("/_sandbox/scenarios")
    .send({ name: "other", merchants: [OTHER] })
    .expect(200);
});
afterEach(() => s.close());

const ids = async (creds: [string, string] | undefined, body: Record<string, string>) =>
  csvRecords(await report(s, body, creds)).map((r) => r.transactionId);

describe("the report holds the merchant's own rows only", () => {
  it("another merchant's payments, refunds and payouts never appear, by either date source or format", async () => {
    const mine = await s.http
      .post("/api/v1/payments/card")
      .set("authorization", await s.token())
      .send(cardPaymentBody())
      .expect(200);
    const theirs = await s.http
      .post("/api/v1/payments/card")
      .set("authorization", await s.token(OTHER.merchantKey, OTHER.merchantSecret))
      .send(cardPaymentBody({ mid: OTHER.mid }))
      .expect(200);
    // biome-ignore format: one row a line
    insertTx(s, { id: "tx_their_refund", merchantKey: OTHER.merchantKey, kind: "refund", parentId: theirs.body.transactionId, createdAt: T0 + 1 });
    // biome-ignore format: one row a line
    insertTx(s, { id: "tx_their_payout", merchantKey: OTHER.merchantKey, kind: "apm_payout", paymentMethod: "PIX", createdAt: T0 + 2 });
    const day = { dateFrom: "2026-01-15", dateTo: "2026-01-15" };
    expect(await ids(undefined, day)).toEqual([mine.body.transactionId]);
    expect(await ids(undefined, { ...day, dateSource: "lastModifiedDate" })).toEqual([mine.body.transactionId]);
    const creds: [string, string] = [OTHER.merchantKey, OTHER.merchantSecret];
    expect(await ids(creds, day)).toEqual([theirs.body.transactionId, "tx_their_refund", "tx_their_payout"]);

    const xls = await report(s, { ...day, format: "XLS" });
    const sheet = (await workbook(xls)).worksheets[0];
    expect(sheet?.rowCount).toBe(2);
    expect(sheet?.getRow(2).getCell(1).value).toBe(mine.body.transactionId);
  });

  it("one merchant's key with the other's secret is refused", async () => {
    const res = await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15" }, ["sandbox_merchant_key", OTHER.merchantSecret]);
    expect(res.status).toBe(401);
  });

  it("no card number or CVV reaches the report: the mask only", async () => {
    await s.http
      .post("/api/v1/payments/card")
      .set("authorization", await s.token())
      // a requestId of its own: the default one holds the process id, which once held "737"
      .send(cardPaymentBody({ requestId: "report-cvv-check" }))
      .expect(200);
    const text = (await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15" })).body.toString("utf8") as string;
    expect(text).toContain("411111******1111");
    expect(text).not.toContain("4111111111111111");
    expect(text).not.toContain("737");
  });
});

describe("a client gone mid-report", () => {
  it("a client that hangs up after the first bytes leaves the server serving, for both formats", async () => {
    const insert = s.ctx.db.$client.prepare(
      `INSERT INTO transactions (id, merchant_key, kind, status, order_currency, order_amount, processed_currency,
        processed_amount, conversion_rate, created_at, updated_at) VALUES (?, 'sandbox_merchant_key', 'card_payment',
        'SUCCEED', 'USD', 100, 'USD', 100, '1', ?, ?)`,
    );
    s.ctx.db.$client.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run(`tx_many${String(i).padStart(6, "0")}`, T0, T0);
    })();
    const server = createServer(getRequestListener(s.app.fetch));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const HEADERS = {
      "content-type": "application/json",
      "x-merchant-key": "sandbox_merchant_key",
      "x-merchant-secret": "sandbox_merchant_secret",
    };
    try {
      for (const format of ["CSV", "XLS"]) {
        const got = await new Promise<number>((resolve, reject) => {
          const req = request(
            { port, host: "127.0.0.1", method: "POST", path: "/api/v1/report-generator/s2s", headers: HEADERS },
            (res) => {
              res.once("data", (chunk: Buffer) => {
                req.destroy();
                resolve(chunk.length);
              });
            },
          );
          req.on("error", (err) => (req.destroyed ? undefined : reject(err)));
          req.end(JSON.stringify({ dateFrom: "2026-01-15", dateTo: "2026-01-15", format }));
        });
        expect(got).toBeGreaterThan(0);
        const after = await report(s, { dateFrom: "2026-01-14", dateTo: "2026-01-14", format });
        expect(after.status).toBe(200);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
