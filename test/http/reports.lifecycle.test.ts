/**
 * The report over transactions made through the API (docs/report.md): a refund and a
 * card payout made by their routes appear with their type and parent, and the refunded payment's
 * lastModifiedAt follows the refund that made it REFUNDED, a day after it was created.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { client } from "./refunds.support.js";
import { csvRecords, report } from "./reports.support.js";

let s: TestSandbox;
let api: ReturnType<typeof client>;
beforeEach(async () => {
  s = makeSandbox(); // T0 = 2026-01-15T12:00:00Z
  const token = await s.token();
  api = client(s, () => token);
});
afterEach(async () => {
  await s.close();
});

describe("refunds and payouts in the report", () => {
  it("rows of every kind made by the API, and lastModifiedDate following a refund", async () => {
    const tx = await api.pay({ amount: "12.00" });
    await s.http.post("/_sandbox/clock/advance").send({ by: "P1D" }).expect(200);
    const refund = (await api.refund(tx, "12.00")).body.refundId as string;
    const payout = (await api.payout({ amount: "3.50" })).body.transactionId as string;
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT1M" }).expect(200);

    const rows = csvRecords(await report(s, { dateFrom: "2026-01-15", dateTo: "2026-01-16" }));
    expect(rows.map((r) => [r.transactionId, r.type, r.status, r.parentTransactionId, r.orderAmount])).toEqual([
      [tx, "PAYMENT", "REFUNDED", "", "12.00"],
      [refund, "REFUND", "SUCCEED", tx, "12.00"],
      [payout, "PAYOUT", "SUCCEED", "", "3.50"],
    ]);
    // created on the 15th, last modified on the 16th by its refund
    const onThe16th = { dateFrom: "2026-01-16", dateTo: "2026-01-16", dateSource: "lastModifiedDate" };
    expect(csvRecords(await report(s, onThe16th)).map((r) => r.transactionId)).toEqual([tx, refund, payout]);
    const createdOnThe16th = { dateFrom: "2026-01-16", dateTo: "2026-01-16" };
    expect(csvRecords(await report(s, createdOnThe16th)).map((r) => r.transactionId)).toEqual([refund, payout]);
  });
});
