import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { transactions, webhookDeliveries } from "../../src/db/schema/index.js";
import { BUILTIN, makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { CARDS, THREE_DS_DEVICE } from "./payments.body.js";
import { client, refundBody } from "./refunds.support.js";

let s: TestSandbox;
let token: string;
let api: ReturnType<typeof client>;

beforeEach(async () => {
  s = makeSandbox();
  token = await s.token();
  api = client(s, () => token);
});

afterEach(async () => {
  await s.close();
});

const counts = () => ({
  rows: s.ctx.db.select().from(transactions).all().length,
  deliveries: s.ctx.db.select().from(webhookDeliveries).all().length,
});

async function expectRefused(body: Record<string, unknown>, status: number, message: string) {
  const before = counts();
  const res = await api.post("/v1/refunds/card", body);
  expect(res.status).toBe(status);
  expect(res.body.errorMessage).toBe(message);
  expect(counts()).toEqual(before);
}

describe("refund refusals: a 4xx naming the field, nothing written (docs/refunds-payouts.md)", () => {
  it.each(["requestId", "mid", "transactionId", "amount", "reason"])("missing %s → 400", async (field) => {
    const tx = await api.pay({ callbackUrl: "http://127.0.0.1:9/cb" });
    const body: Record<string, unknown> = refundBody(tx, "1.00");
    delete body[field];
    await expectRefused(body, 400, `Missing required field: ${field}`);
  });

  it.each([
    ["20.001", "more decimals than USD has"],
    ["0", "zero"],
    ["-1", "negative"],
    ["1e2", "exponent"],
    ["20.51", "more than the order"],
  ])("amount %s (%s) → 400 Invalid field: amount", async (amount) => {
    const tx = await api.pay({ amount: "20.50" });
    await expectRefused(refundBody(tx, amount), 400, "Invalid field: amount");
  });

  it("an amount as a JSON number → 400 Invalid field: amount", async () => {
    const tx = await api.pay({ amount: "20.50" });
    await expectRefused({ ...refundBody(tx, "1"), amount: 1 }, 400, "Invalid field: amount");
  });

  it("another merchant's mid → 400 Invalid field: mid", async () => {
    const tx = await api.pay();
    await expectRefused(refundBody(tx, "1.00", { mid: "someone-else" }), 400, "Invalid field: mid");
  });

  it("a callbackUrl that is not an http(s) URL → 400", async () => {
    const tx = await api.pay();
    await expectRefused(refundBody(tx, "1.00", { callbackUrl: "ftp://x" }), 400, "Invalid field: callbackUrl");
  });

  it("an unknown transaction, a refund id or a payout id → 404 Transaction not found", async () => {
    await expectRefused(refundBody("tx_nope", "1.00"), 404, "Transaction not found: tx_nope");
    const tx = await api.pay({ amount: "5.00" });
    const r = await api.refund(tx, "1.00");
    await expectRefused(refundBody(r.body.refundId, "1.00"), 404, `Transaction not found: ${r.body.refundId}`);
    const p = await api.payout();
    await expectRefused(refundBody(p.body.transactionId, "1.00"), 404, `Transaction not found: ${p.body.transactionId}`);
  });

  it("another merchant's transaction → 404, and its refunds are invisible", async () => {
    const tx = await api.pay({ amount: "5.00" });
    const r = await api.refund(tx, "1.00");
    await s.http
      .post("/_sandbox/scenarios")
      .send({
        name: "other",
        merchants: [{ merchantKey: "o_key", merchantSecret: "o_secret", mid: "o-mid", merchantId: 9001, accountId: 9101 }],
      })
      .expect(200);
    const other = client(s, () => otherToken);
    const otherToken = await s.token("o_key", "o_secret");
    const res = await other.post("/v1/refunds/card", refundBody(tx, "1.00", { mid: "o-mid" }));
    expect(res.status).toBe(404);
    expect(res.body.errorMessage).toBe(`Transaction not found: ${tx}`);
    expect((await other.get(`/api/v1/refunds/card/info/${r.body.refundId}`)).status).toBe(404);
    expect((await other.get(`/api/v1/refunds/card/status/${r.body.refundId}`)).status).toBe(404);
  });

  it("a FAILED, a CUSTOMER_VERIFICATION or a REFUNDED transaction → 400 Invalid field: transactionId", async () => {
    const failed = await api.pay({ card: { number: CARDS.declined } });
    await expectRefused(refundBody(failed, "1.00"), 400, "Invalid field: transactionId");
    const challenged = await api.pay({
      card: { number: CARDS.threeDs },
      callbackUrl: "https://shop.example/cb",
      successRedirectUrl: "https://shop.example/ok",
      failureRedirectUrl: "https://shop.example/ko",
      device: THREE_DS_DEVICE,
    });
    await expectRefused(refundBody(challenged, "1.00"), 400, "Invalid field: transactionId");
    const refunded = await api.pay({ amount: "2.00" });
    await api.refund(refunded, "2.00");
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT1M" }).expect(200);
    expect((await api.get(`/api/v1/payments/card/status/${refunded}`)).body.transactionStatus).toBe("REFUNDED");
    await expectRefused(refundBody(refunded, "1.00"), 400, "Invalid field: transactionId");
  });

  it("no token → 401; status and info of unknown ids → 404", async () => {
    expect((await s.http.post("/v1/refunds/card").send(refundBody("tx_1", "1"))).status).toBe(401);
    expect((await api.get("/api/v1/refunds/card/info/rf_nope")).body.errorMessage).toBe("Refund not found: rf_nope");
    expect((await api.get("/api/v1/refunds/card/status/rf_nope")).status).toBe(404);
  });

  it("a refund id is not a card payment (status/info of the payments route → 404)", async () => {
    const tx = await api.pay({ amount: "5.00" });
    const r = await api.refund(tx, "1.00");
    expect((await api.get(`/api/v1/payments/card/info/${r.body.refundId}`)).status).toBe(404);
  });
});

describe("refund info of a FAILED refund carries its declineCode; a BUILTIN sanity check", () => {
  it("mid in records is the merchant's", async () => {
    const tx = await api.pay({ amount: "5.00" });
    const r = await api.refund(tx, "1.00");
    expect((await api.get(`/api/v1/refunds/card/info/${r.body.refundId}`)).body.mid).toBe(BUILTIN.mid);
  });
});
