/**
 * The dashboard (docs/dashboard.md) in headless Chromium against the real server started the README way:
 * navigation by keyboard, filters, a transaction's timeline and deliveries, replay, complete, the
 * clock's advance buttons, the admin-token login, and the link to /guide. Screenshots go to
 * test-results/ (gitignored) and their paths are printed; the list and a transaction's page are also
 * the docs' pictures (docs/images/, test/helpers/screenshots.ts).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, launchChromium } from "../helpers/browser.js";
import { BUILTIN } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { docScreenshot } from "../helpers/screenshots.js";
import { ROOT, type RunningServer, startServer } from "../helpers/server.js";
import { fetchToken } from "../helpers/token.js";
import { CARDS, cardPaymentBody, threeDsBody } from "../http/payments.body.js";

const chromiumOk = hasChromium("dashboard.browser");

const RESULTS = join(ROOT, "test-results");
const START = "2026-01-15T12:00:00Z";
const QA = {
  merchantKey: "qa_key",
  merchantSecret: "qa_secret_that_must_never_show",
  mid: "qa-mid",
  merchantId: 5001,
  accountId: 6001,
  name: "QA Shop",
};

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const tokenOf = (base: string, merchantKey: string, merchantSecret: string) => fetchToken(base, { merchantKey, merchantSecret });

async function screenshot(page: Page, name: string) {
  mkdirSync(RESULTS, { recursive: true });
  const path = join(RESULTS, name);
  await page.screenshot({ path, fullPage: true });
  console.log(`dashboard screenshot: ${path}`);
}

describe.skipIf(!chromiumOk)("dashboard in headless Chromium", () => {
  let sandbox: RunningServer;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  const tx: Record<"ok" | "declined" | "threeDs" | "processing" | "qa", string> = {
    ok: "",
    declined: "",
    threeDs: "",
    processing: "",
    qa: "",
  };

  beforeAll(async () => {
    [sandbox, receiver, browser] = await Promise.all([
      startServer({ args: ["--start-time", START] }),
      startReceiver(),
      launchChromium(),
    ]);
    const loaded = await post(`${sandbox.url}/_sandbox/scenarios`, {
      name: "dashboard-e2e",
      description: "A second merchant and a rule that leaves 13.37 PROCESSING",
      merchants: [QA],
      cards: [{ number: "4242424242424242", label: "scenario card", payment: { status: "FAILED", declineCode: 5 } }],
      rules: [{ amount: "13.37", status: "PROCESSING" }],
    });
    expect(loaded.status).toBe(200);
    const builtin = await tokenOf(sandbox.url, BUILTIN.merchantKey, BUILTIN.merchantSecret);
    const pay = async (token: string, body: Record<string, unknown>) => {
      const r = await post(`${sandbox.url}/api/v1/payments/card`, body, { authorization: token });
      expect(r.status).toBe(200);
      return r.body.transactionId as string;
    };
    const cb = `${receiver.url}/cb`;
    tx.ok = await pay(builtin, cardPaymentBody({ callbackUrl: cb, requestId: "order-<b>1</b>" }));
    tx.declined = await pay(builtin, cardPaymentBody({ callbackUrl: cb, card: { number: CARDS.declined } }));
    tx.threeDs = await pay(builtin, threeDsBody(cb));
    tx.processing = await pay(builtin, cardPaymentBody({ callbackUrl: cb, amount: "13.37" }));
    const qaToken = await tokenOf(sandbox.url, QA.merchantKey, QA.merchantSecret);
    tx.qa = await pay(qaToken, cardPaymentBody({ mid: QA.mid, callbackUrl: cb, amount: "7.00", currency: "EUR" }));
    await receiver.waitFor(5); // one callback each
    page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
    await receiver?.close();
  });

  const rows = () => page.locator("#transactions tbody tr");
  const flash = () => page.locator("#flash").textContent();

  it("lists every transaction newest first and filters by status and merchant", async () => {
    await page.goto(`${sandbox.url}/`);
    expect(await page.title()).toBe("Transactions · paysandbox");
    expect(await rows().count()).toBe(5);
    const ids = await page.locator("#transactions tbody tr td:nth-child(2) a").allTextContents();
    expect(ids).toEqual([tx.qa, tx.processing, tx.threeDs, tx.declined, tx.ok]);
    await screenshot(page, "dashboard.png");
    await docScreenshot(page, "dashboard.png");

    await page.selectOption("#f-status", "FAILED");
    await Promise.all([page.waitForURL(/status=FAILED/), page.click("button:has-text('Filter')")]);
    expect(await rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain(tx.declined);
    expect(await page.locator("#f-status").inputValue()).toBe("FAILED");

    await page.selectOption("#f-status", "");
    await page.selectOption("#f-merchant", QA.merchantKey);
    await Promise.all([page.waitForURL(/merchant=qa_key/), page.click("button:has-text('Filter')")]);
    expect(await rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain("7.00 EUR");

    await page.selectOption("#f-merchant", "");
    await page.selectOption("#f-kind", "refund");
    await Promise.all([page.waitForURL(/kind=refund/), page.click("button:has-text('Filter')")]);
    expect(await page.locator("#transactions tbody").textContent()).toContain("No transactions match these filters.");

    await Promise.all([page.waitForURL(`${sandbox.url}/`), page.click("text=Clear filters")]);
    expect(await rows().count()).toBe(5);
  });

  it("is usable with the keyboard: Tab reaches a transaction link with a visible focus ring, Enter opens it", async () => {
    await page.goto(`${sandbox.url}/`);
    const target = `/dashboard/transactions/${tx.ok}`;
    let reached = false;
    for (let i = 0; i < 60 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate((href) => document.activeElement?.getAttribute("href") === href, target);
    }
    expect(reached).toBe(true);
    const outline = await page.evaluate(() => {
      const s = getComputedStyle(document.activeElement as Element);
      return { style: s.outlineStyle, width: s.outlineWidth };
    });
    expect(outline.style).toBe("solid");
    expect(outline.width).toBe("3px");
    await Promise.all([page.waitForURL(`${sandbox.url}${target}`), page.keyboard.press("Enter")]);
    expect(await page.locator("h1").textContent()).toContain(tx.ok);
  });

  it("shows a transaction's facts, timeline and deliveries; Replay sends the webhook again", async () => {
    await page.goto(`${sandbox.url}/dashboard/transactions/${tx.ok}`);
    expect(await page.locator("#facts").textContent()).toContain("order-<b>1</b>"); // shown as text, not markup
    expect(await page.locator("#facts b").count()).toBe(0);
    const timeline = await page.locator("#timeline").textContent();
    expect(timeline).toContain("Created");
    expect(timeline).toContain("SUCCEED");
    const deliveries = page.locator("article.delivery");
    expect(await deliveries.count()).toBe(1);
    expect(await deliveries.first().locator("table").textContent()).toContain("HTTP 200");
    await page.click("summary:has-text('Request headers and body')");
    expect(await page.locator("pre.body").first().textContent()).toContain(`"transactionId": "${tx.ok}"`);
    expect(await page.locator("pre.headers").first().textContent()).toContain("X-Checksum:");

    const before = receiver.received.length;
    await Promise.all([
      page.waitForURL(`${sandbox.url}/dashboard/transactions/${tx.ok}`),
      page.click("button:has-text('Replay')"),
    ]);
    expect(await flash()).toMatch(/replayed as wh_/);
    await receiver.waitFor(before + 1);
    const replayed = receiver.received[before]?.body as Record<string, unknown>;
    expect(replayed.transactionId).toBe(tx.ok);
    await page.reload();
    expect(await page.locator("article.delivery").count()).toBe(2);
    expect(await page.locator("article.delivery").nth(1).textContent()).toContain("replay of");
    expect(await page.locator("#flash").count()).toBe(0); // a flash shows once
    await screenshot(page, "dashboard-transaction.png");
    await page.reload(); // the deliveries' details closed, the timeline in view
    await docScreenshot(page, "dashboard-transaction.png");
  });

  it("links the guide from its nav: /guide renders README.md and its pages, with no CSP violation", async () => {
    const violations: string[] = [];
    const listen = (m: { type(): string; text(): string }) => {
      if (m.type() === "error") violations.push(m.text());
    };
    page.on("console", listen);
    try {
      await page.goto(`${sandbox.url}/`);
      await Promise.all([page.waitForURL(`${sandbox.url}/guide`), page.click("nav.main a:has-text('Guide')")]);
      expect(await page.title()).toBe("paysandbox · paysandbox guide");
      expect(await page.locator("article.doc h1").first().textContent()).toBe("paysandbox");
      expect(await page.locator("article.doc h1").first().getAttribute("id")).toBe("paysandbox");
      const heading = await page.evaluate(
        () => getComputedStyle(document.querySelector("header.top") as Element).backgroundColor,
      );
      expect(heading).toBe("rgb(20, 26, 42)"); // the stylesheet applied under the CSP
      await Promise.all([
        page.waitForURL(`${sandbox.url}/guide/lifecycles`),
        page.click("nav.pages a:has-text('Status lifecycles')"),
      ]);
      expect(await page.locator("#subscriptions").textContent()).toBe("Subscriptions");
      expect(await page.locator("pre.mermaid").count()).toBeGreaterThanOrEqual(5);
      await Promise.all([page.waitForURL(`${sandbox.url}/`), page.click("nav.main a:has-text('Dashboard')")]);
      expect(violations).toEqual([]);
    } finally {
      page.off("console", listen);
    }
  });

  it("completes a PROCESSING transaction from its page, with its webhook", async () => {
    await page.goto(`${sandbox.url}/dashboard/transactions/${tx.processing}`);
    expect(await page.locator("h1 .badge").textContent()).toBe("PROCESSING");
    const before = receiver.received.length;
    await page.selectOption("#decline-code", "5");
    await page.click("button:has-text('Complete as FAILED')");
    await page.waitForURL(`${sandbox.url}/dashboard/transactions/${tx.processing}`);
    expect(await flash()).toContain("completed: FAILED (declineCode 5)");
    expect(await page.locator("h1 .badge").textContent()).toBe("FAILED");
    expect(await page.locator("button:has-text('Complete as SUCCEED')").count()).toBe(0);
    await receiver.waitFor(before + 1);
    const hook = receiver.received[before]?.body as Record<string, unknown>;
    expect([hook.transactionId, hook.transactionStatus, hook.declineCode]).toEqual([tx.processing, "FAILED", 5]);
  });

  it("links a CUSTOMER_VERIFICATION transaction to its 3DS challenge page", async () => {
    await page.goto(`${sandbox.url}/dashboard/transactions/${tx.threeDs}`);
    await Promise.all([
      page.waitForURL(`${sandbox.url}/sandbox/3ds/${tx.threeDs}`),
      page.click("text=Open the 3DS challenge page"),
    ]);
    expect(await page.locator('button[value="success"]').count()).toBe(1);
  });

  it("advances the virtual clock with the buttons and the ISO field, and shows a refused duration", async () => {
    await page.goto(`${sandbox.url}/dashboard/merchants`);
    const now = async () => Date.parse(`${await page.getAttribute("#clock-now", "datetime")}`);
    const t0 = await now();
    await Promise.all([
      page.waitForURL(`${sandbox.url}/dashboard/merchants`),
      page.click("button[aria-label='Advance the clock by 1 day']"),
    ]);
    expect(await flash()).toContain("Clock advanced by P1D");
    const t1 = await now();
    expect(t1 - t0).toBeGreaterThanOrEqual(86_400_000);
    expect(t1 - t0).toBeLessThan(86_400_000 + 60_000);

    await page.fill("#advance-by", "PT2H");
    await Promise.all([page.waitForURL(`${sandbox.url}/dashboard/merchants`), page.press("#advance-by", "Enter")]);
    const t2 = await now();
    expect(t2 - t1).toBeGreaterThanOrEqual(2 * 3_600_000);

    await page.fill("#advance-by", "P1X");
    await Promise.all([page.waitForURL(`${sandbox.url}/dashboard/merchants`), page.press("#advance-by", "Enter")]);
    expect(await page.locator("#flash.error").textContent()).toBe("Invalid field: by");
    expect((await now()) - t2).toBeLessThan(60_000);
  });

  it("shows merchants with masked secrets, the scenario with masked cards, and subscriptions", async () => {
    await page.goto(`${sandbox.url}/dashboard/merchants`);
    const html = await page.content();
    expect(html).not.toContain(QA.merchantSecret);
    expect(html).not.toContain(BUILTIN.merchantSecret);
    expect(html).not.toContain("4242424242424242");
    expect(await page.locator("#merchants").textContent()).toContain("qa_s••••");
    expect(await page.locator(".scenario").textContent()).toContain("424242******4242");
    await Promise.all([page.waitForURL(`${sandbox.url}/dashboard/subscriptions`), page.click("nav.main >> text=Subscriptions")]);
    expect(await page.locator("#subscriptions tbody").textContent()).toContain("No subscriptions yet.");
  });
});

describe.skipIf(!chromiumOk)("dashboard behind SANDBOX_ADMIN_TOKEN in headless Chromium", () => {
  let sandbox: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [sandbox, browser] = await Promise.all([startServer({ env: { SANDBOX_ADMIN_TOKEN: "s3cret-admin" } }), launchChromium()]);
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
  });

  it("asks for the token once, then keeps an HttpOnly SameSite=Strict session for pages and forms", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${sandbox.url}/dashboard/merchants`);
    expect(page.url()).toBe(`${sandbox.url}/dashboard/login?next=%2Fdashboard%2Fmerchants`);

    await page.fill("#token", "wrong");
    await page.press("#token", "Enter");
    await page.waitForLoadState();
    expect(await page.locator("#flash").textContent()).toBe("Wrong admin token.");

    await page.fill("#token", "s3cret-admin");
    await Promise.all([page.waitForURL(`${sandbox.url}/dashboard/merchants`), page.click("button:has-text('Log in')")]);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: "paysandbox_session", httpOnly: true, sameSite: "Strict" });
    expect(cookie?.value).not.toContain("s3cret-admin");

    await Promise.all([
      page.waitForURL(`${sandbox.url}/dashboard/merchants`),
      page.click("button[aria-label='Advance the clock by 1 hour']"),
    ]);
    expect(await page.locator("#flash").textContent()).toContain("Clock advanced by PT1H");

    // the same form posted without the session cookie is refused
    const anonymous = await fetch(`${sandbox.url}/dashboard/clock/advance`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: sandbox.url },
      body: "by=P1D",
      redirect: "manual",
    });
    expect(anonymous.status).toBe(401);

    await Promise.all([page.waitForURL(/\/dashboard\/login/), page.click("button:has-text('Log out')")]);
    await page.goto(`${sandbox.url}/`);
    expect(page.url()).toContain("/dashboard/login");
    await context.close();
  });
});
