/**
 * The 3DS challenge page in headless Chromium against the real server (docs/cards.md#3ds-challenge): a shopper
 * clicks a button, lands on the merchant's page with transactionId, and the webhook says so.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, type ShopperRig, startShopperRig } from "../helpers/browser.js";
import { BUILTIN } from "../helpers/harness.js";
import type { Receiver } from "../helpers/receiver.js";
import { docScreenshot } from "../helpers/screenshots.js";
import type { RunningServer } from "../helpers/server.js";
import { threeDsBody } from "../http/payments.body.js";

const chromiumOk = hasChromium("three-ds.browser");

describe.skipIf(!chromiumOk)("3DS challenge page in headless Chromium", () => {
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

  async function challenge(): Promise<{ transactionId: string; challengeUrl: string; challengeUrlIframe: string }> {
    const body = threeDsBody(`${receiver.url}/cb`, {
      successRedirectUrl: `${shop.url}/ok`,
      failureRedirectUrl: `${shop.url}/ko?order=9`,
    });
    const res = await fetch(`${sandbox.url}/api/v1/payments/card`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as {
      transactionId: string;
      transactionStatus: string;
      challengeUrl: string;
      challengeUrlIframe: string;
    };
    expect(json.transactionStatus).toBe("CUSTOMER_VERIFICATION");
    return json;
  }

  const hooksFor = (id: string) => rig.hooksFor(id);
  const waitForHooks = (id: string, n: number) => rig.waitForHooks(id, n);

  it("success button → the success URL with transactionId, and the SUCCEED webhook", async () => {
    const tx = await challenge();
    const page = await browser.newPage();
    try {
      await page.goto(tx.challengeUrl);
      expect(await page.locator("form[method=post]").count()).toBe(1);
      expect(await page.textContent("[data-field=merchant]")).toBe(BUILTIN.mid);
      expect(await page.textContent("[data-field=card]")).toBe("411111******1111");
      await docScreenshot(page, "three-ds.png");
      await Promise.all([
        page.waitForURL(`${shop.url}/ok?transactionId=${tx.transactionId}`),
        page.click('button[value="success"]'),
      ]);
      expect(await page.textContent("#landed")).toBe("/ok");
    } finally {
      await page.close();
    }
    await waitForHooks(tx.transactionId, 2);
    expect(hooksFor(tx.transactionId).map((b) => b.transactionStatus)).toEqual(["CUSTOMER_VERIFICATION", "SUCCEED"]);
  });

  it("in an iframe, the failure button navigates the top window to the failure URL; FAILED webhook with declineCode 3", async () => {
    const tx = await challenge();
    const page = await browser.newPage();
    try {
      await page.goto(`${shop.url}/checkout?frame=${encodeURIComponent(tx.challengeUrlIframe)}`);
      const frame = page.frameLocator("iframe");
      await frame.locator('button[value="failure"]').waitFor();
      await Promise.all([
        page.waitForURL(`${shop.url}/ko?order=9&transactionId=${tx.transactionId}`),
        frame.locator('button[value="failure"]').click(),
      ]);
      expect(page.frames()).toHaveLength(1); // the iframe is gone: the top window moved
      expect(await page.textContent("#landed")).toBe("/ko");
    } finally {
      await page.close();
    }
    await waitForHooks(tx.transactionId, 2);
    expect(hooksFor(tx.transactionId).map((b) => [b.transactionStatus, b.declineCode])).toEqual([
      ["CUSTOMER_VERIFICATION", null],
      ["FAILED", 3],
    ]);
  });
});
