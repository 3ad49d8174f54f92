/**
 * The dashboard over HTTP (docs/dashboard.md): JSON or HTML at `/` by the Accept header, the list of
 * every kind with its filters and keyset pages, a transaction's page, the actions through their
 * services with Post/Redirect/Get, subscriptions, merchants and scenarios.
 */
import { afterEach, describe, expect, it } from "vitest";
import { BUILTIN, makeSandbox, T0, type TestSandbox } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { cookiesOf, flashOf, listedIds, ORIGIN, pagerLink, pay, seedTransaction } from "./dashboard.support.js";
import { CARDS, threeDsBody } from "./payments.body.js";
import { gateway, subscriptionBody, tokenFor } from "./subscriptions.support.js";

let s: TestSandbox;
let receiver: Receiver | undefined;
afterEach(async () => {
  await s?.close();
  await receiver?.close();
  receiver = undefined;
});

const INDEX = {
  name: "paysandbox",
  docs: "/docs",
  openapi: "/openapi.json",
  health: "/_sandbox/health",
  sandboxes: "/_sandbox/sandboxes",
};

describe("GET / negotiates JSON for clients that ask, the dashboard for browsers", () => {
  it.each([
    ["application/json", "json"],
    ["application/json, text/plain, */*", "json"],
    ["text/html;q=0.5, application/json", "json"],
    ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "html"],
    ["*/*", "html"],
    ["text/html", "html"],
  ])("Accept: %s → %s", async (accept, want) => {
    s = makeSandbox();
    const res = await s.http.get("/").set("accept", accept);
    expect(res.status).toBe(200);
    if (want === "json") {
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect(res.body).toEqual(INDEX);
    } else {
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.text.startsWith("<!doctype html>")).toBe(true);
      expect(res.text).toContain("<h1>Transactions</h1>");
    }
  });

  it("no Accept header at all → the dashboard", async () => {
    s = makeSandbox();
    const res = await s.http.get("/").unset("Accept" as never);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
  });
});

describe("transaction list", () => {
  it("shows every kind newest first with KIND_FACTS labels, and filters by merchant, kind, status and subscription", async () => {
    s = makeSandbox();
    const ok = await pay(s);
    const declined = await pay(s, { card: { number: CARDS.declined } });
    seedTransaction(s, { id: "rf_000001", kind: "refund", parentId: ok, status: "PENDING", orderAmount: 100 });
    seedTransaction(s, {
      id: "tx_apm0001",
      kind: "apm_payment",
      paymentMethod: "UPI_QR",
      status: "PENDING",
      orderCurrency: "INR",
      processedCurrency: "INR",
    });
    seedTransaction(s, { id: "po_000001", kind: "card_payout", merchantKey: "other", cardBin: "411111", cardLast4: "1111" });
    const page = await s.http.get("/");
    expect(listedIds(page.text)).toEqual(["po_000001", "tx_apm0001", "rf_000001", declined, ok]);
    for (const label of ["Card payout", "APM payment", "Refund", "Card payment"]) expect(page.text).toContain(`<td>${label}`);
    expect(page.text).toContain("UPI_QR");
    expect(page.text).toContain(`of <a class="mono" href="/dashboard/transactions/${ok}">`);

    const ids = async (query: Record<string, string>) => listedIds((await s.http.get("/").query(query)).text);
    expect(await ids({ kind: "refund" })).toEqual(["rf_000001"]);
    expect(await ids({ status: "FAILED" })).toEqual([declined]);
    expect(await ids({ merchant: BUILTIN.merchantKey, status: "SUCCEED" })).toEqual([ok]);
    expect(await ids({ kind: "", status: "", merchant: "" })).toHaveLength(5); // the "All" options
    expect(await ids({ kind: "card_charge" })).toEqual([]);
    expect((await s.http.get("/").query({ kind: "card_charge" })).text).toContain("No transactions match these filters.");
  });

  it("pages by keyset: disjoint pages in order, Newer walks back, and a new row does not shift the pages seen", async () => {
    s = makeSandbox();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      made.push(await pay(s));
      if (i % 2 === 0) s.clock.advance(1000); // some rows share a millisecond: rowid orders them
    }
    const newestFirst = [...made].reverse();
    const first = await s.http.get("/").query({ limit: "3" });
    expect(listedIds(first.text)).toEqual(newestFirst.slice(0, 3));
    expect(pagerLink(first.text, "prev")).toBeUndefined();
    const next = pagerLink(first.text, "next") ?? "";
    expect(next).toMatch(/^\/\?limit=3&before=\d+\.\d+$/);

    const late = await pay(s); // newer than everything: must not push rows into page 2
    const second = await s.http.get(next);
    expect(listedIds(second.text)).toEqual(newestFirst.slice(3, 6));
    const third = await s.http.get(pagerLink(second.text, "next") ?? "");
    expect(listedIds(third.text)).toEqual(newestFirst.slice(6));
    expect(pagerLink(third.text, "next")).toBeUndefined();

    const back = await s.http.get(pagerLink(third.text, "prev") ?? "");
    expect(listedIds(back.text)).toEqual(newestFirst.slice(3, 6));
    const top = await s.http.get(pagerLink(back.text, "prev") ?? "");
    expect(listedIds(top.text)).toEqual(newestFirst.slice(0, 3));
    expect(listedIds((await s.http.get(pagerLink(top.text, "prev") ?? "")).text)).toEqual([late]);
  });

  it("keeps the filters on the pager links", async () => {
    s = makeSandbox();
    for (let i = 0; i < 3; i++) await pay(s, { card: { number: CARDS.declined } });
    await pay(s);
    const first = await s.http.get("/").query({ status: "FAILED", limit: "2" });
    const next = pagerLink(first.text, "next") ?? "";
    expect(next).toMatch(/status=FAILED/);
    expect(listedIds((await s.http.get(next)).text)).toHaveLength(1);
  });
});

describe("transaction page", () => {
  it("shows facts, the timeline from the deliveries, refunds by parent_id, and each delivery's attempts and body", async () => {
    receiver = await startReceiver();
    s = makeSandbox();
    const id = await pay(s, { callbackUrl: `${receiver.url}/cb`, metadata: { orderRef: "A-1" } });
    await s.ctx.work.runUntil();
    s.clock.advance(60_000);
    seedTransaction(s, { id: "rf_000009", kind: "refund", parentId: id, status: "SUCCEED", orderAmount: 1000 });
    const res = await s.http.get(`/dashboard/transactions/${id}`);
    expect(res.status).toBe(200);
    const timeline = res.text.slice(
      res.text.indexOf('id="timeline"'),
      res.text.indexOf("</ol>", res.text.indexOf('id="timeline"')),
    );
    expect(timeline).toMatch(
      /Created.*Status <span class="badge b-ok">SUCCEED<\/span>.*Refund <span class="badge b-ok">SUCCEED/s,
    );
    expect(res.text).toContain("Refunds and other linked transactions (1)");
    expect(res.text).toContain("20.50 USD");
    expect(res.text).toContain("411111******1111");
    expect(res.text).toContain("HTTP 200");
    expect(res.text).toContain("&quot;orderRef&quot;: &quot;A-1&quot;");
    expect(res.text).toContain(`action="/dashboard/webhooks/wh_000001/replay"`);
    expect(res.text).not.toContain("Complete as SUCCEED"); // SUCCEED is final
    const refund = await s.http.get("/dashboard/transactions/rf_000009");
    expect(refund.text).toContain(`href="/dashboard/transactions/${id}"`);
    expect(refund.text).toContain("None: this transaction has no callbackUrl.");
  });

  it("links the shopper's page: 3DS while CUSTOMER_VERIFICATION, QR or HPP for a waiting APM pay-in", async () => {
    s = makeSandbox();
    const threeDs = await pay(s, threeDsBody("https://shop.example/cb"));
    seedTransaction(s, {
      id: "tx_qr",
      kind: "apm_payment",
      paymentMethod: "UPI_QR",
      status: "PENDING",
      orderCurrency: "INR",
      processedCurrency: "INR",
    });
    seedTransaction(s, {
      id: "tx_hpp",
      kind: "apm_payment",
      paymentMethod: "EXTERNAL_HPP_EFT",
      status: "PENDING",
      orderCurrency: "CAD",
      processedCurrency: "CAD",
    });
    seedTransaction(s, { id: "tx_out", kind: "apm_payout", paymentMethod: "SMART_E_WALLET", status: "PENDING" });
    expect((await s.http.get(`/dashboard/transactions/${threeDs}`)).text).toContain(`href="/sandbox/3ds/${threeDs}"`);
    const qr = (await s.http.get("/dashboard/transactions/tx_qr")).text;
    expect(qr).toContain('href="/sandbox/qr/tx_qr"');
    expect(qr).toContain("Complete as SUCCEED"); // PENDING can be completed
    expect((await s.http.get("/dashboard/transactions/tx_hpp")).text).toContain('href="/sandbox/hpp/tx_hpp"');
    const payout = (await s.http.get("/dashboard/transactions/tx_out")).text;
    expect(payout).not.toContain("/sandbox/hpp/");
    expect(payout).toContain("<h1>APM payout");
  });
});

describe("actions answer 303 back to the page with a flash message", () => {
  const form = (path: string, fields: Record<string, string>) =>
    s.http.post(path).set("origin", ORIGIN).type("form").send(fields);

  it("advance moves the virtual clock through the control service and says what ran", async () => {
    s = makeSandbox();
    const res = await form("/dashboard/clock/advance", { by: "P1D", back: "/dashboard/merchants?x=1" });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/dashboard/merchants?x=1");
    expect(s.clock.nowMs()).toBe(T0 + 86_400_000);
    const page = await s.http.get("/dashboard/merchants?x=1").set("cookie", cookiesOf(res));
    expect(flashOf(page.text)).toEqual({
      kind: "ok",
      text: expect.stringMatching(/^Clock advanced by P1D to 2026-01-16T12:00:00.000Z: 288 scheduler ticks/),
    });
    expect(page.text).toContain('datetime="2026-01-16T12:00:00.000Z"');
    // the flash is shown once: the page clears its cookie
    expect(String(page.headers["set-cookie"])).toMatch(/paysandbox_flash=;.*Max-Age=0/);
  });

  it("replay sends a delivery again as a new one; complete finishes a PROCESSING transaction with its webhook", async () => {
    receiver = await startReceiver();
    s = makeSandbox();
    await s.http.post("/_sandbox/scenarios").send({ name: "wait", rules: [{ amount: "13.37", status: "PROCESSING" }] });
    const id = await pay(s, { amount: "13.37", callbackUrl: `${receiver.url}/cb` });
    await s.ctx.work.runUntil();
    const replay = await form("/dashboard/webhooks/wh_000001/replay", { back: `/dashboard/transactions/${id}` });
    expect(replay.status).toBe(303);
    expect(replay.headers.location).toBe(`/dashboard/transactions/${id}`);
    await s.ctx.work.runUntil();
    const journal = await s.http.get("/_sandbox/webhooks").query({ transactionId: id });
    expect(journal.body.map((d: { replayOf: string | null }) => d.replayOf)).toEqual(["wh_000001", null]);

    const done = await form(`/dashboard/transactions/${id}/complete`, { status: "FAILED", declineCode: "5" });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`/dashboard/transactions/${id}`);
    const page = await s.http.get(`/dashboard/transactions/${id}`).set("cookie", cookiesOf(done));
    expect(flashOf(page.text)?.text).toBe(`Transaction ${id} completed: FAILED (declineCode 5).`);
    await s.ctx.work.runUntil();
    const status = await gateway(s).get(`/payments/card/status/${id}`);
    expect(status.body.transactionStatus).toBe("FAILED");
    const hooks = receiver.received.map((h) => (h.body as { transactionStatus: string }).transactionStatus);
    expect(hooks).toEqual(["PROCESSING", "PROCESSING", "FAILED"]);
  });
});

describe("subscriptions, merchants and scenarios", () => {
  it("lists subscriptions with their next charge and links each to its charges", async () => {
    s = makeSandbox();
    const token = await tokenFor(s);
    const created = await gateway(s).post("/payments/card/recurring", subscriptionBody(token, "https://shop.example/cb"));
    expect(created.status).toBe(200);
    const sub = created.body.subscriptionId as string;
    const page = await s.http.get("/dashboard/subscriptions");
    expect(page.text).toContain(`href="/?subscription=${sub}"`);
    expect(page.text).toContain("2026-02-15"); // next charge, a month after the first
    expect(page.text).toContain("9.99 USD");
    expect((await s.http.get("/dashboard/subscriptions").query({ status: "PAUSED" })).text).not.toContain(sub);
    await s.http.post("/_sandbox/clock/advance").send({ by: "P1M" });
    const charges = (await s.http.get("/").query({ subscription: sub })).text;
    // the first charge at creation and the scheduled one a month later
    expect(listedIds(charges)).toEqual(["tx_000002", "tx_000001"]);
    expect(charges.match(/<td>Subscription charge/g)).toHaveLength(2);
  });

  it("shows merchants with masked secrets and scenarios with masked card numbers", async () => {
    s = makeSandbox();
    await s.http.post("/_sandbox/scenarios").send({
      name: "qa",
      description: "QA merchant",
      merchants: [
        {
          merchantKey: "qa_key",
          merchantSecret: "qa-secret-0123456789",
          mid: "qa-mid",
          merchantId: 7001,
          accountId: 8001,
          name: "QA",
        },
      ],
      cards: [{ number: "4242424242424242", payment: { status: "FAILED", declineCode: 5 } }],
      rules: [{ card: "5555555555554444", status: "PROCESSING", completeAfter: "PT5M" }],
    });
    const page = await s.http.get("/dashboard/merchants");
    expect(page.status).toBe(200);
    for (const secret of ["qa-secret-0123456789", BUILTIN.merchantSecret, "4242424242424242", "5555555555554444"]) {
      expect(page.text).not.toContain(secret);
    }
    expect(page.text).toContain("qa-s••••••••••••");
    expect(page.text).toContain("424242******4242");
    expect(page.text).toContain("card 555555******4444");
    expect(page.text).toContain("PROCESSING → final after PT5M");
    expect(page.text).toContain('href="/?merchant=qa_key"');
  });
});
