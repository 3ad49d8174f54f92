/**
 * The dashboard's Coverage page (docs/coverage.md#the-dashboard) in headless Chromium against the real
 * server started the README way: reached from the navigation, the matrix by area, a seen behaviour
 * linking to its first transaction, a never-seen one with its hint, and the page following the live
 * events (a payment made while it is open shows up without a reload). Its picture is the docs' one
 * (docs/images/dashboard-coverage.png, test/helpers/screenshots.ts).
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, launchChromium } from "../helpers/browser.js";
import { BUILTIN } from "../helpers/harness.js";
import { docScreenshot } from "../helpers/screenshots.js";
import { type RunningServer, startServer } from "../helpers/server.js";
import { fetchToken } from "../helpers/token.js";
import { cardPaymentBody } from "../http/payments.body.js";

const chromiumOk = hasChromium("coverage.browser");

describe.skipIf(!chromiumOk)("the Coverage page in headless Chromium", () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let token: string;
  let approved = "";

  const pay = async (number: string) => {
    const res = await fetch(`${server.url}/api/v1/payments/card`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token },
      body: JSON.stringify(cardPaymentBody({ card: { number } })),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { transactionId: string }).transactionId;
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ args: ["--start-time", "2026-01-15T12:00:00Z"] }), launchChromium()]);
    token = await fetchToken(server.url, { merchantKey: BUILTIN.merchantKey, merchantSecret: BUILTIN.merchantSecret });
    approved = await pay("4111111111111111");
    await pay("4000000000000002");
    page = await browser.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("is reached from the navigation and shows the matrix by area", async () => {
    await page.goto(`${server.url}/`);
    await Promise.all([
      page.waitForURL(`${server.url}/dashboard/coverage`),
      page.getByRole("link", { name: "Coverage" }).click(),
    ]);
    expect(await page.locator("h1").textContent()).toBe("Payment-behaviour coverage");
    expect(await page.locator('nav.main a[aria-current="page"]').textContent()).toBe("Coverage");
    expect(await page.locator("#coverage-summary").textContent()).toMatch(/2 of \d+ behaviours of the catalogue seen/);
    const card = page.locator("#coverage-areas tbody tr", { hasText: "Card payments and 3DS" });
    expect(await card.locator("td").first().textContent()).toBe("2");
    expect(await page.locator("#coverage-areas tbody tr").count()).toBe(9);
  });

  it("a seen behaviour links to its first transaction; one never seen shows its hint", async () => {
    const seen = page.locator("#b-card\\.payment\\.succeed");
    expect(await seen.getAttribute("data-seen")).toBe("yes");
    expect(await seen.locator("td.num").textContent()).toBe("1");
    const unseen = page.locator("#b-card\\.3ds\\.failed");
    expect(await unseen.getAttribute("data-seen")).toBe("no");
    expect(await unseen.locator(".hint").textContent()).toBe(
      "Pay by card 4000000000003220, then answer the 3DS challenge: failure.",
    );
    await docScreenshot(page, "dashboard-coverage.png");
    await Promise.all([
      page.waitForURL(`${server.url}/dashboard/transactions/${approved}`),
      seen.getByRole("link", { name: approved }).click(),
    ]);
    expect(await page.locator("h1").textContent()).toContain(approved);
  });

  it("follows the live events: a payment made while it is open is counted without a reload", async () => {
    await page.goto(`${server.url}/dashboard/coverage`);
    // a marker that a reload would wipe
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    const row = page.locator("#b-card\\.payment\\.succeed td.num");
    expect(await row.textContent()).toBe("1");
    await pay("4111111111111111");
    await page.locator("#b-card\\.payment\\.succeed td.num", { hasText: "2" }).waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded === true)).toBe(true);
  });
});
