/**
 * The dashboard follows the live events (docs/dashboard.md, docs/events.md) in headless Chromium against the real
 * server: a new transaction appears on the open list without a reload, a transaction's timeline and
 * the clock move by themselves, the same under a sandbox's base URL, nothing breaks the page's
 * Content-Security-Policy, and with script off every page still works (a reload shows the news).
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, launchChromium } from "../helpers/browser.js";
import { type RunningServer, startServer } from "../helpers/server.js";
import { fetchToken } from "../helpers/token.js";
import { CARDS, cardPaymentBody, threeDsBody } from "../http/payments.body.js";

const chromiumOk = hasChromium("live.browser");

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function pay(base: string, body: Record<string, unknown> = cardPaymentBody()): Promise<string> {
  const r = await post(`${base}/api/v1/payments/card`, body, { authorization: await fetchToken(base) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.transactionId as string;
}

describe.skipIf(!chromiumOk)("the dashboard updates itself from the live events", () => {
  let server: RunningServer;
  let browser: Browser;
  const cspErrors: string[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ args: ["--start-time", "2026-01-15T12:00:00Z"] }), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage();
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
    await page.goto(url);
    // a marker that a reload would wipe
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    return page;
  }
  const notReloaded = (page: Page) => page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded === true);

  it("shows a new transaction on the open list, and the clock's moves, without a reload", async () => {
    const first = await pay(server.url);
    const page = await open(`${server.url}/`);
    await page.locator(`#transactions a:has-text("${first}")`).waitFor();
    const tx = await pay(server.url);
    await page.locator(`#transactions a:has-text("${tx}")`).waitFor({ timeout: 10_000 });
    expect(await page.locator("#transactions tbody tr td:nth-child(2) a").allTextContents()).toEqual([tx, first]);

    // the clock runs (scale 1): the page shows where the advance put it
    const moved = await post(`${server.url}/_sandbox/clock/advance`, { by: "P1D" });
    const shown = String(moved.body.now).slice(0, 19).replace("T", " ");
    expect(shown).toMatch(/^2026-01-16 12:0/);
    await page.waitForFunction((text) => document.getElementById("clock-now")?.textContent === text, shown, { timeout: 10_000 });
    expect(await notReloaded(page)).toBe(true);
    await page.close();
  });

  it("moves a transaction's timeline on, with its webhook attempts", async () => {
    const tx = await pay(server.url, threeDsBody("http://127.0.0.1:9/hook", { card: { number: CARDS.threeDs } }));
    const page = await open(`${server.url}/dashboard/transactions/${tx}`);
    expect(await page.locator("h1 .badge").textContent()).toBe("CUSTOMER_VERIFICATION");
    // the challenge times out after 30 virtual minutes
    await post(`${server.url}/_sandbox/clock/advance`, { by: "PT31M" });
    await page.locator("h1 .badge", { hasText: "FAILED" }).waitFor({ timeout: 10_000 });
    await page.locator("#timeline", { hasText: "FAILED" }).waitFor();
    await page.locator("#deliveries h2", { hasText: "Webhook deliveries (2)" }).waitFor({ timeout: 10_000 });
    expect(await notReloaded(page)).toBe(true);
    await page.close();
  });

  it("does the same on a sandbox's dashboard, under its base URL", async () => {
    const created = await post(`${server.url}/_sandbox/sandboxes`, { name: "live" });
    const baseUrl = created.body.baseUrl as string;
    const page = await open(`${baseUrl}/`);
    expect(await page.locator("#live-events").getAttribute("href")).toMatch(
      /^\/sandboxes\/sbx_\w+\/dashboard\/events\?since=\d+/,
    );
    const tx = await pay(baseUrl);
    await page.locator(`#transactions a:has-text("${tx}")`).waitFor({ timeout: 10_000 });
    // the root's list did not get it
    expect(await (await fetch(`${server.url}/`)).text()).not.toContain(tx);
    expect(await notReloaded(page)).toBe(true);
    await page.close();
  });

  it("breaks no Content-Security-Policy rule", () => {
    expect(cspErrors).toEqual([]);
  });

  it("works without script: the list and a transaction render, a reload shows the news", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    const before = await page.locator("#transactions tbody tr").count();
    const tx = await pay(server.url);
    await page.reload();
    expect(await page.locator("#transactions tbody tr").count()).toBe(before + 1);
    await page.click(`text=${tx}`);
    expect(await page.locator("h1 .badge").textContent()).toBe("SUCCEED");
    await context.close();
  });
});
