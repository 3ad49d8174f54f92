/**
 * The 3DS challenge page in headless Chromium against the real server (CONTRACT §3): a shopper
 * clicks a button, lands on the merchant's page with transactionId, and the webhook says so.
 */
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { type RunningServer, startServer } from "../helpers/server.js";
import { threeDsBody } from "../http/payments.body.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`three-ds.browser: skipped, ${CHROMIUM} is absent (.ci/run installs it with apt)`);

/** The merchant's shop: the redirect targets and a checkout page that frames the challenge. */
async function startShop(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://shop");
    res.setHeader("content-type", "text/html; charset=utf-8");
    if (u.pathname === "/checkout") {
      const src = u.searchParams.get("challenge") ?? "";
      res.end(
        `<!doctype html><title>checkout</title><h1>Checkout</h1><iframe src="${src.replace(/"/g, "&quot;")}" width="500" height="500"></iframe>`,
      );
    } else {
      res.end(`<!doctype html><title>${u.pathname}</title><h1 id="landed">${u.pathname}</h1>`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe.skipIf(!hasChromium)("3DS challenge page in headless Chromium", () => {
  let sandbox: RunningServer;
  let receiver: Receiver;
  let shop: { url: string; server: Server };
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    [sandbox, receiver, shop] = await Promise.all([startServer(), startReceiver(), startShop()]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
    });
    const auth = await fetch(`${sandbox.url}/api/v1/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ merchantKey: BUILTIN.merchantKey, merchantSecret: BUILTIN.merchantSecret }),
    });
    token = ((await auth.json()) as { token: string }).token;
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
    await receiver?.close();
    await new Promise((resolve) => shop?.server.close(resolve));
  });

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

  const hooksFor = (id: string) =>
    receiver.received.map((h) => h.body as Record<string, unknown>).filter((b) => b.transactionId === id);

  /** Waits on arrivals (no sleeping) until `n` callbacks of the transaction are in. */
  async function waitForHooks(id: string, n: number) {
    while (hooksFor(id).length < n) await receiver.waitFor(receiver.received.length + 1);
  }

  it("success button → the success URL with transactionId, and the SUCCEED webhook", async () => {
    const tx = await challenge();
    const page = await browser.newPage();
    try {
      await page.goto(tx.challengeUrl);
      expect(await page.locator("form[method=post]").count()).toBe(1);
      expect(await page.textContent("[data-field=merchant]")).toBe(BUILTIN.mid);
      expect(await page.textContent("[data-field=card]")).toBe("411111******1111");
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
      await page.goto(`${shop.url}/checkout?challenge=${encodeURIComponent(tx.challengeUrlIframe)}`);
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
