/**
 * docs/parallel-suites.md in headless Chromium: a sandbox's 3DS page (under its base URL) is clicked through to
 * the shop, its webhook arrives, and its dashboard's links stay inside the sandbox.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, type ShopperRig, startShopperRig } from "../helpers/browser.js";
import { BUILTIN } from "../helpers/harness.js";
import type { Receiver } from "../helpers/receiver.js";
import type { RunningServer } from "../helpers/server.js";
import { fetchToken } from "../helpers/token.js";
import { threeDsBody } from "../http/payments.body.js";

const chromiumOk = hasChromium("sandboxes.browser");

describe.skipIf(!chromiumOk)("a sandbox's pages in headless Chromium", () => {
  let rig: ShopperRig;
  let server: RunningServer;
  let receiver: Receiver;
  let shop: ShopperRig["shop"];
  let browser: Browser;

  beforeAll(async () => {
    rig = await startShopperRig();
    ({ sandbox: server, receiver, shop, browser } = rig);
  });

  afterAll(() => rig?.close());

  it("3DS success under the sandbox's base URL → the shop, its webhook, and its dashboard", async () => {
    const created = await fetch(`${server.url}/_sandbox/sandboxes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "browser" }),
    });
    const { baseUrl, id } = (await created.json()) as { baseUrl: string; id: string };
    // the server's public URL is localhost; the browser reaches the same server at 127.0.0.1
    const base = `${server.url}/sandboxes/${id}`;
    expect(baseUrl).toMatch(new RegExp(`/sandboxes/${id}$`));
    const token = await fetchToken(base);
    const pay = await fetch(`${base}/api/v1/payments/card`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token },
      body: JSON.stringify(
        threeDsBody(`${receiver.url}/cb`, { successRedirectUrl: `${shop.url}/ok`, failureRedirectUrl: `${shop.url}/ko` }),
      ),
    });
    const tx = (await pay.json()) as { transactionId: string; transactionStatus: string; challengeUrl: string };
    expect(tx.transactionStatus).toBe("CUSTOMER_VERIFICATION");
    expect(tx.challengeUrl).toBe(`${baseUrl}/sandbox/3ds/${tx.transactionId}`);

    const page = await browser.newPage();
    try {
      await page.goto(`${base}/sandbox/3ds/${tx.transactionId}`);
      expect(await page.textContent("[data-field=merchant]")).toBe(BUILTIN.mid);
      await Promise.all([
        page.waitForURL(`${shop.url}/ok?transactionId=${tx.transactionId}`),
        page.click('button[value="success"]'),
      ]);
      while (!receiver.received.some((h) => (h.body as { transactionStatus?: string }).transactionStatus === "SUCCEED")) {
        await receiver.waitFor(receiver.received.length + 1);
      }

      // its dashboard lists it, and following the link stays under the sandbox
      await page.goto(`${base}/`);
      await Promise.all([
        page.waitForURL(`${base}/dashboard/transactions/${tx.transactionId}`),
        page.click(`a[href$="${tx.transactionId}"]`),
      ]);
      expect(await page.textContent("h1")).toContain(tx.transactionId);
      // the root's dashboard does not have it, and lists the sandbox
      await page.goto(`${server.url}/`);
      expect(await page.locator(`a[href$="${tx.transactionId}"]`).count()).toBe(0);
      await Promise.all([page.waitForURL(`${base}/`), page.click(`a[href="/sandboxes/${id}/"]`)]);
    } finally {
      await page.close();
    }
  }, 30_000);
});
