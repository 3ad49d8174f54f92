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
      .send(cardPaymentBody())
      .expect(200);
    const text = (await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-15" })).body.toString("utf8") as string;
    expect(text).toContain("411111******1111");
    expect(text).not.toContain("4111111111111111");
    expect(text).not.toContain("737");
  });
});
