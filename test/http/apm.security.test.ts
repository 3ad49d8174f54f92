import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN, loggedSandbox, makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { apmBody, type Body, hmac, payoutBody, sign } from "./apm.support.js";

let s: TestSandbox;
let mine: string;
let theirs: string;
let payIn: string;
let payOut: string;

beforeAll(async () => {
  s = makeSandbox();
  await s.http
    .post("/_sandbox/scenarios")
    .send({
      name: "other",
      merchants: [
        {
          merchantKey: "other_key",
          merchantSecret: "other_secret",
          mid: "other-mid",
          merchantId: 7001,
          accountId: 8001,
          walletDomains: ["other.example"],
        },
      ],
    })
    .expect(200);
  mine = await s.token();
  theirs = await s.token("other_key", "other_secret");
  payIn = (await s.http.post("/api/v1/payments/apm").set("authorization", mine).send(apmBody("SMART_E_WALLET"))).body
    .transactionId;
  payOut = (
    await s.http.post("/api/v1/payouts/apm").set("authorization", mine).set("referer", "https://x.example").send(payoutBody())
  ).body.transactionId;
  expect(payIn).toMatch(/^tx_/);
  expect(payOut).toMatch(/^po_/);
});
afterAll(async () => {
  await s.close();
});

describe("another merchant's APM ids → 404", () => {
  it.each([
    () => `/api/v1/payments/apm/status/${payIn}`,
    () => `/api/v1/payments/apm/info/${payIn}`,
    () => `/api/v1/payouts/apm/info/${payOut}`,
  ])("%s", async (path) => {
    const res = await s.http.get(path()).set("authorization", theirs);
    expect(res.status).toBe(404);
    expect(res.body.errorMessage).toMatch(/not found/);
    expect((await s.http.get(path()).set("authorization", mine)).status).toBe(200);
  });

  it("a pay-in id is not a payout and the reverse; unknown ids are 404", async () => {
    expect((await s.http.get(`/api/v1/payouts/apm/info/${payIn}`).set("authorization", mine)).status).toBe(404);
    expect((await s.http.get(`/api/v1/payments/apm/info/${payOut}`).set("authorization", mine)).status).toBe(404);
    expect((await s.http.get("/api/v1/payments/apm/status/tx_nope").set("authorization", mine)).status).toBe(404);
  });

  it("a checksum made with another merchant's secret is refused; without a token → 401", async () => {
    const body = apmBody("SMART_E_WALLET");
    const forged = { ...body, checksum: hmac("other_secret", `2001|20.50|USD|${body.requestId}`) };
    expect((await s.http.post("/api/v1/payments/apm").set("authorization", mine).send(forged)).status).toBe(400);
    expect((await s.http.post("/api/v1/payments/apm").send(body)).status).toBe(401);
  });
});

describe("wallet sessions (docs/wallets.md, docs/apm.md)", () => {
  const byAccount = (body: object, auth = mine) =>
    s.http.post("/api/v1/wallet-pay/merchant-session-by-account").set("authorization", auth).send(body);
  const session = (body: object) => s.http.post("/api/v1/wallet-pay/merchant-session").set("authorization", mine).send(body);
  const validationUrl = "https://apple-pay-gateway.apple.com/paymentservices/startSession";

  it("by account: the seven fields, for an origin given as a URL or a bare host", async () => {
    for (const origin of ["http://localhost:3000/checkout", "localhost", "127.0.0.1"]) {
      const res = await byAccount({ validationUrl, origin, accountId: 2001 });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(
        [
          "displayName",
          "domainName",
          "epochTimestamp",
          "expiresAt",
          "merchantIdentifier",
          "merchantSessionIdentifier",
          "nonce",
        ].sort(),
      );
      expect(res.body.epochTimestamp).toBe(s.clock.nowMs());
      expect(res.body.expiresAt).toBe(s.clock.nowMs() + 3_600_000);
      expect(res.body.displayName).toBe("sandbox-mid-001");
      expect(res.body.domainName).toBe(origin === "127.0.0.1" ? "127.0.0.1" : "localhost");
    }
  });

  it("merchant-session: any non-empty intentToken, the same fields plus signature", async () => {
    const res = await session({ validationUrl, origin: "https://localhost", intentToken: "pi_123" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ domainName: "localhost", signature: expect.any(String), nonce: expect.any(String) });
  });

  it.each([
    [{ validationUrl, origin: "evil.example", accountId: 2001 }, "Invalid field: origin"],
    [{ validationUrl, origin: "https://localhost.evil.example", accountId: 2001 }, "Invalid field: origin"],
    [{ validationUrl, origin: "other.example", accountId: 2001 }, "Invalid field: origin"],
    [{ validationUrl, origin: "localhost", accountId: 8001 }, "Invalid field: accountId"],
    [{ validationUrl: "ftp://x.example/a", origin: "localhost", accountId: 2001 }, "Invalid field: validationUrl"],
    [{ validationUrl: "/relative", origin: "localhost", accountId: 2001 }, "Invalid field: validationUrl"],
    [{ origin: "localhost", accountId: 2001 }, "Missing required field: validationUrl"],
  ])("by account %j → 400 %s", async (body, message) => {
    const res = await byAccount(body);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe(message);
  });

  it("merchant-session refuses an empty intentToken and a foreign origin", async () => {
    expect((await session({ validationUrl, origin: "localhost", intentToken: "" })).body.errorMessage).toBe(
      "Invalid field: intentToken",
    );
    expect((await session({ validationUrl, origin: "other.example", intentToken: "t" })).body.errorMessage).toBe(
      "Invalid field: origin",
    );
  });
});

describe("the decrypted wallet flow (docs/wallets.md; docs/apm.md)", () => {
  it("only the wallet fields, with or without a token object: the test-card table decides; the PAN is never stored or logged", async () => {
    const { ctx, http, lines, close } = loggedSandbox("trace");
    try {
      const auth = (
        await http.post("/api/v1/auth").send({ merchantKey: BUILTIN.merchantKey, merchantSecret: BUILTIN.merchantSecret })
      ).body.token as string;
      let n = 0;
      const walletPay = (pan: string, token?: Body) =>
        http
          .post("/api/v1/payments/apm")
          .set("authorization", auth)
          .send(
            sign({
              requestId: `decrypted-${++n}`,
              accountId: String(BUILTIN.accountId),
              amount: "20.50",
              currency: "USD",
              apmPayload: {
                paymentMethod: n % 2 ? "APPLE_PAY" : "GOOGLE_PAY",
                paymentType: "MOBILE_WALLET",
                ...(token ? { token } : {}),
                decrypted: { applicationPrimaryAccountNumber: pan, onlinePaymentCryptogram: "AgAAAAAABk4DWZ4C28yUQAAAAAA=" },
              },
            }),
          );
      const aside = {
        paymentMethod: { displayName: "Visa 0002", network: "Visa", type: "debit" },
        transactionIdentifier: "A1B2",
      };

      const declined = await walletPay("4000000000000002", aside);
      expect(declined.status).toBe(200);
      expect(declined.body).toMatchObject({
        transactionStatus: "FAILED",
        declineCode: 2,
        apmResponseData: { actionType: "NONE" },
      });
      const approved = await walletPay("4111111111111111", aside);
      expect(approved.body).toMatchObject({ transactionStatus: "SUCCEED", apmResponseData: { actionType: "NONE" } });
      const bare = await walletPay("5500000000000004");
      expect(bare.body.transactionStatus).toBe("SUCCEED");

      const info = await http.get(`/api/v1/payments/apm/info/${declined.body.transactionId}`).set("authorization", auth);
      expect(info.body.apmRequestPayload).toEqual({
        paymentMethod: "APPLE_PAY",
        paymentType: "MOBILE_WALLET",
        token: {},
        decrypted: { applicationPrimaryAccountNumber: "400000******0002" },
      });

      const db = ctx.db.$client;
      const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>;
      const dump = JSON.stringify(tables.map(({ name }) => db.prepare(`select * from "${name}"`).all()));
      expect(lines.length).toBeGreaterThan(0);
      for (const pan of ["4000000000000002", "4111111111111111", "5500000000000004"]) {
        expect(dump).not.toContain(pan);
        expect(lines.join("")).not.toContain(pan);
      }
      expect(dump).not.toContain("AgAAAAAABk4DWZ4C28yUQAAAAAA=");
    } finally {
      await close();
    }
  });

  it("a token without paymentData and no decrypted PAN → Missing required field: apmPayload.token.paymentData", async () => {
    const body = apmBody("APPLE_PAY", {}, { token: { transactionIdentifier: "A1B2" } });
    const res = await s.http.post("/api/v1/payments/apm").set("authorization", mine).send(body);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe("Missing required field: apmPayload.token.paymentData");
  });
});
