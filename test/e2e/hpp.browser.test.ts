/**
 * The hosted payment page and the QR page in headless Chromium against the real server (docs/apm.md#the-hosted-payment-page
 * "Hosted payment page", "APM flows"): missing fields → the form again with a message (HTTP 400);
 * filled in → 303 to the merchant's page, then PROCESSING and SUCCEED callbacks; the QR page works
 * inside the merchant's iframe and breaks out to the top window.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, type ShopperRig, startShopperRig } from "../helpers/browser.js";
import type { Receiver } from "../helpers/receiver.js";
import { docScreenshot } from "../helpers/screenshots.js";
import type { RunningServer } from "../helpers/server.js";
import { apmBody, type Body } from "../http/apm.support.js";

const chromiumOk = hasChromium("hpp.browser");

describe.skipIf(!chromiumOk)("HPP and QR pages in headless Chromium", () => {
  let rig: ShopperRig;
  let sandbox: RunningServer;
  let receiver: Receiver;
  let shop: ShopperRig["shop"];
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    rig = await startShopperRig({ args: ["--start-time", "2026-01-15T12:00:00Z"] });
    ({ sandbox, receiver, shop, browser, token } = rig);
  });

  afterAll(() => rig?.close());

  async function payIn(method: string, payload?: Body): Promise<{ transactionId: string; path: string }> {
    const body = apmBody(
      method,
      { callbackUrl: `${receiver.url}/cb`, successRedirectUrl: `${shop.url}/ok`, failureRedirectUrl: `${shop.url}/ko` },
      payload,
    );
    const res = await fetch(`${sandbox.url}/api/v1/payments/apm`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as {
      transactionId: string;
      transactionStatus: string;
      apmResponseData: { redirectUrl: string };
    };
    expect(json.transactionStatus).toBe("PENDING");
    return { transactionId: json.transactionId, path: new URL(json.apmResponseData.redirectUrl).pathname };
  }

  const hooksFor = (id: string) => rig.hooksFor(id);
  const waitForHooks = (id: string, n: number) => rig.waitForHooks(id, n);
  const advance = (by: string) =>
    fetch(`${sandbox.url}/_sandbox/clock/advance`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ by }),
    });

  it("HPP: empty fields → the form again with a message and HTTP 400; filled in → 303 to the shop, then SUCCEED by webhook", async () => {
    const tx = await payIn("SMART_BANK_TRANSFER", { bankName: "Sandbox Bank" });
    const page = await browser.newPage();
    try {
      await page.goto(`${sandbox.url}${tx.path}`);
      expect(await page.locator("form[method=post] input").count()).toBe(2);
      expect(await page.textContent('label[for="f-accountNumber"]')).toBe("Bank account number");
      await docScreenshot(page, "hpp.png");
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.click('button[value="success"]'),
      ]);
      expect(refused.status()).toBe(400);
      expect(await page.textContent("[role=alert]")).toContain("accountNumber");
      await page.fill('input[name="accountNumber"]', "12345678");
      await page.fill('input[name="accountHolderName"]', "Jane Doe");
      const [answered] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.waitForURL(`${shop.url}/ok?transactionId=${tx.transactionId}`),
        page.click('button[value="success"]'),
      ]);
      expect(answered.status()).toBe(303);
      expect(await page.textContent("#landed")).toBe("/ok");
    } finally {
      await page.close();
    }
    await waitForHooks(tx.transactionId, 2);
    expect((await advance("PT1M")).status).toBe(200);
    await waitForHooks(tx.transactionId, 3);
    expect(hooksFor(tx.transactionId).map((b) => b.transactionStatus)).toEqual(["PENDING", "PROCESSING", "SUCCEED"]);
    expect(hooksFor(tx.transactionId)[2]?.apmRequestPayload).toMatchObject({
      accountNumber: "12345678",
      accountHolderName: "Jane Doe",
    });
  });

  it("QR page in the merchant's iframe: the image renders; the button moves the top window to the shop", async () => {
    const tx = await payIn("UPI_QR");
    const alone = await browser.newPage(); // the page as a shopper's browser opens it, for the docs
    try {
      await alone.goto(`${sandbox.url}${tx.path}`);
      await alone.locator("img.qr").waitFor();
      await docScreenshot(alone, "qr.png");
    } finally {
      await alone.close();
    }
    const page = await browser.newPage();
    try {
      await page.goto(`${shop.url}/checkout?frame=${encodeURIComponent(`${sandbox.url}${tx.path}?mode=iframe`)}`);
      const frame = page.frameLocator("iframe");
      await frame.locator('button[value="success"]').waitFor();
      const width = await frame.locator("img.qr").evaluate((img) => (img as HTMLImageElement).naturalWidth);
      expect(width).toBeGreaterThan(100);
      await Promise.all([
        page.waitForURL(`${shop.url}/ok?transactionId=${tx.transactionId}`),
        frame.locator('button[value="success"]').click(),
      ]);
      expect(page.frames()).toHaveLength(1);
    } finally {
      await page.close();
    }
    await waitForHooks(tx.transactionId, 2);
    expect(hooksFor(tx.transactionId).map((b) => b.transactionStatus)).toEqual(["PENDING", "PROCESSING"]);
  });
});
