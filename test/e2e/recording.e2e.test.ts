/**
 * Recording a session as a steps file (docs/recording.md), end to end: a person's session in a
 * sandbox of a real server (every kind: card with and without 3DS, a scenario card, one-click, a
 * subscription with an advance, a refund, a card payout, APM with the hosted page, a QR pay-in, a
 * wallet pay-in, the report, and each page pressed a second time), across a restart of the server; `paysandbox record` writes it, and the
 * file runs green with `paysandbox run` on fresh sandboxes, in the command's own process and on the
 * running server. Ids from earlier answers are references, never raw ids; no card number or CVV
 * reached the database files to make this possible.
 */

import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { call, type RunningServer, runCli, startServer, tempDbPath } from "../helpers/server.js";
import { readStrict } from "../helpers/strict-yaml.js";
import { fetchToken } from "../helpers/token.js";
import { apmBody, FIELDS, sign } from "../http/apm.support.js";
import { BILLING, CARDS, cardPaymentBody, DEVICE, threeDsBody } from "../http/payments.body.js";

const SCENARIO_CARD = "4242424242424242";
const CVV = "737";
const dir = mkdtempSync(join(tmpdir(), "paysandbox-record-"));
const dbPath = tempDbPath();

let server: RunningServer;
let receiver: Receiver;
let base: string;
let token: string;

const gw = (method: string, path: string, body?: unknown) => call(method, `${base}/api/v1${path}`, body, token);
const form = (path: string, fields: Record<string, string>) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });

async function login() {
  token = await fetchToken(base);
}

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startServer({ dbPath });
  const made = await call("POST", `${server.url}/_sandbox/sandboxes`, {
    name: "explored by hand",
    startTime: "2026-03-02T09:00:00Z",
    scenario: { name: "qa-cards", cards: [{ number: SCENARIO_CARD, payment: { status: "FAILED", declineCode: 5 } }] },
  });
  expect(made.status).toBe(201);
  base = made.body.baseUrl;
  await login();
}, 30_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

describe("a session recorded and replayed (docs/recording.md)", () => {
  const hook = () => `${receiver.url}/hooks`;
  let file = "";

  it("a person's session of every kind, across a restart, is recorded whole", async () => {
    const paid = await gw("POST", "/payments/card", cardPaymentBody({ callbackUrl: hook() }));
    expect(paid.body.transactionStatus).toBe("SUCCEED");
    const declined = await gw(
      "POST",
      "/payments/card",
      cardPaymentBody({ card: { number: SCENARIO_CARD }, callbackUrl: hook() }),
    );
    expect(declined.body).toMatchObject({ transactionStatus: "FAILED", declineCode: 5 });
    const bad = await gw("POST", "/payments/card", cardPaymentBody({ amount: "-1" }));
    expect(bad.status).toBe(400);
    const challenged = await gw("POST", "/payments/card", threeDsBody(hook(), { card: { number: CARDS.threeDs } }));
    expect(challenged.body.transactionStatus).toBe("CUSTOMER_VERIFICATION");
    expect((await form(`/sandbox/3ds/${challenged.body.transactionId}`, { outcome: "success" })).status).toBeLessThan(400);
    // the shopper presses again on the page still on the screen: 409, and the replay posts it again too
    expect((await form(`/sandbox/3ds/${challenged.body.transactionId}`, { outcome: "success" })).status).toBe(409);

    const tokenized = await gw("POST", "/payments/card/tokenize", {
      requestId: "tok-by-hand",
      merchantId: 1001,
      card: { number: CARDS.visa, expMonth: "12", expYear: "2030", cvv: CVV },
      billingDetails: BILLING,
    });
    expect(tokenized.status, JSON.stringify(tokenized.body)).toBe(200);
    const charged = await gw("POST", "/payments/card/charge", {
      requestId: "one-click-1",
      mid: "sandbox-mid-001",
      cardToken: tokenized.body.token,
      amount: "12.00",
      currency: "USD",
      callbackUrl: hook(),
      successRedirectUrl: "https://shop.example/ok",
      failureRedirectUrl: "https://shop.example/ko",
    });
    expect(charged.body.transactionStatus).toBe("SUCCEED");
    const subscribed = await gw("POST", "/payments/card/recurring", {
      requestId: "plan-by-hand",
      mid: "sandbox-mid-001",
      cardToken: tokenized.body.token,
      plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2026-03-02" },
      order: { orderId: "plan-1" },
      device: DEVICE,
      callbackUrl: hook(),
      successRedirectUrl: "https://shop.example/ok",
      failureRedirectUrl: "https://shop.example/ko",
    });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(200);

    // the server restarts in the middle of the session: what was answered is recorded, and the rest joins it
    await server.stop();
    server = await startServer({ dbPath });
    base = `${server.url}${new URL(base).pathname}`;
    await login();

    expect((await call("POST", `${base}/_sandbox/clock/advance`, { by: "P1M" })).status).toBe(200);
    await login(); // a month on, the token has expired
    const sub = await gw("GET", `/payments/card/recurring/${subscribed.body.subscriptionId ?? subscribed.body.id}`);
    expect(sub.status).toBe(200);
    const refunded = await gw("POST", "/refunds/card", {
      requestId: "refund-by-hand",
      mid: "sandbox-mid-001",
      transactionId: paid.body.transactionId,
      amount: "5.00",
      reason: "customer request",
      callbackUrl: hook(),
    });
    expect(refunded.body.transactionStatus).toBe("PENDING");
    const payout = await gw("POST", "/payouts/card", {
      requestId: "payout-by-hand",
      mid: "sandbox-mid-001",
      userEmail: "jane@example.com",
      amount: "25.00",
      card: { number: CARDS.visa, cardHolder: "Jane Doe", expMonth: "12", expYear: "2030" },
      callbackUrl: hook(),
    });
    expect(payout.status, JSON.stringify(payout.body)).toBe(200);

    const hpp = await gw("POST", "/payments/apm", apmBody("EXTERNAL_HPP_EFT", { callbackUrl: hook() }));
    expect(hpp.body.transactionStatus).toBe("PENDING");
    const page = await form(`/sandbox/hpp/${hpp.body.transactionId}`, {
      outcome: "success",
      accountHolderName: "Jane Doe",
      institutionNumber: "001",
      transitNumber: "00011",
      accountNumber: "1234567",
    });
    expect(page.status).toBe(303);
    expect((await form(`/sandbox/hpp/${hpp.body.transactionId}`, { outcome: "failure" })).status).toBe(409);
    const qr = await gw("POST", "/payments/apm", apmBody("UPI_QR", { callbackUrl: hook() }));
    expect((await form(`/sandbox/qr/${qr.body.transactionId}`, { outcome: "success" })).status).toBeLessThan(400);
    expect((await form(`/sandbox/qr/${qr.body.transactionId}`, { outcome: "success" })).status).toBe(409);
    const wallet = await gw(
      "POST",
      "/payments/apm",
      sign({
        ...apmBody("APPLE_PAY"),
        apmPayload: { paymentMethod: "APPLE_PAY", paymentType: "MOBILE_WALLET", ...FIELDS.APPLE_PAY },
      }),
    );
    expect(wallet.body.transactionStatus).toBe("SUCCEED");
    expect((await call("POST", `${base}/_sandbox/clock/advance`, { by: "PT5M" })).status).toBe(200);
    expect((await gw("GET", `/refunds/card/status/${refunded.body.refundId ?? refunded.body.transactionId}`)).status).toBe(200);
    const report = await fetch(`${base}/api/v1/report-generator/s2s`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-merchant-key": "sandbox_merchant_key",
        "x-merchant-secret": "sandbox_merchant_secret",
      },
      body: JSON.stringify({ dateFrom: "2026-01-01", dateTo: "2026-12-31" }),
    });
    expect(report.status).toBe(200);

    const sandboxId = new URL(base).pathname.split("/")[2] as string;
    const out = join(dir, "session.yaml");
    const recorded = await runCli(["record", "--target", server.url, "--sandbox", sandboxId, "--out", out]);
    expect(recorded.code, recorded.output).toBe(0);
    file = readFileSync(out, "utf8");
    const doc = readStrict(file) as { steps: Array<Record<string, unknown>>; startTime: string };
    const kinds = doc.steps.map((s) => Object.keys(s).find((k) => k !== "name" && k !== "as"));
    for (const kind of ["request", "advance", "threeDS", "hpp", "qr", "webhook"]) expect(kinds).toContain(kind);
    const again = doc.steps.filter((s) => (s.threeDS || s.hpp || s.qr) && (s.expect as { status?: number })?.status === 409);
    expect(again).toHaveLength(3);
    const requests = doc.steps.filter((s) => s.request).map((s) => s.request);
    for (const path of ["/payments/card", "/payments/card/tokenize", "/payments/card/charge", "/payments/card/recurring"]) {
      expect(requests).toContain(`POST /api/v1${path}`);
    }
    for (const path of ["/refunds/card", "/payouts/card", "/payments/apm", "/report-generator/s2s"]) {
      expect(requests).toContain(`POST /api/v1${path}`);
    }
    expect(doc.startTime).toMatch(/^2026-03-02T09:/);
  }, 120_000);

  it("ids of earlier answers are references; cards are test cards again; no comment says a step cannot replay", () => {
    const doc = readStrict(file) as { steps: Array<Record<string, unknown>> };
    for (const step of doc.steps) {
      const { name: _name, expect: _expect, ...sent } = step;
      expect(JSON.stringify(sent), JSON.stringify(step)).not.toMatch(/\b(tx|tok|sub|rf|po|wh)_[0-9A-Za-z]{12,}/);
    }
    expect(file).toContain("${uuid}");
    expect(file).toMatch(/\$\{payment1\.transactionId\}/);
    expect(file).toContain(SCENARIO_CARD);
    expect(file).toContain(CARDS.threeDs);
    expect(file).not.toMatch(new RegExp(`cvv: "?${CVV}`));
    expect(file).toContain('cvv: "123"');
    expect(file).not.toContain("cannot replay");
  });

  it("the file runs green with paysandbox run: in its own process, and on the running server", async () => {
    const path = join(dir, "session.yaml");
    const local = await runCli(["run", path], {}, 60_000);
    expect(local.code, local.output).toBe(0);
    expect(local.output).toMatch(/\d+ passed, 0 failed/);
    const remote = await runCli(["run", "--target", server.url, path], {}, 60_000);
    expect(remote.code, remote.output).toBe(0);
  }, 120_000);

  it("no card number or CVV of the session is in the database files", () => {
    const folder = join(dbPath, "..");
    const files = readdirSync(folder, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const bytes = readFileSync(join(f.parentPath, f.name)).toString("latin1");
      // (the scenario's own card is in its stored document, as every loaded scenario's cards are)
      for (const secret of [CARDS.visa, CARDS.threeDs]) {
        expect(bytes.includes(secret), `${secret} in ${f.name}`).toBe(false);
      }
    }
  });
});
