/**
 * The dashboard's Fork and Download snapshot (docs/snapshots.md) in headless Chromium against the real
 * server: on the root's list of sandboxes, Fork lands on the copy's own dashboard, which lists the
 * source's payment; the copy's Download snapshot saves a file that loads as yet another sandbox.
 */
import { readFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, launchChromium } from "../helpers/browser.js";
import { BUILTIN } from "../helpers/harness.js";
import { type RunningServer, startServer } from "../helpers/server.js";
import { cardPaymentBody } from "../http/payments.body.js";

const chromiumOk = hasChromium("snapshots.browser");

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe.skipIf(!chromiumOk)("Fork and Download snapshot in headless Chromium", () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("Fork on the root's list → the copy's dashboard with the source's payment; its snapshot downloads and loads", async () => {
    const created = await post(`${server.url}/_sandbox/sandboxes`, { name: "world" });
    const id = String(created.body.id);
    // the server's public URL is localhost; the browser reaches it at 127.0.0.1
    const base = `${server.url}/sandboxes/${id}`;
    const auth = await post(`${base}/api/v1/auth`, { merchantKey: BUILTIN.merchantKey, merchantSecret: BUILTIN.merchantSecret });
    const paid = await post(`${base}/api/v1/payments/card`, cardPaymentBody(), { authorization: String(auth.body.token) });
    const orderId = String(paid.body.transactionId);

    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/`);
      const row = page.locator("#sandboxes tr", { hasText: id });
      await Promise.all([
        page.waitForURL(new RegExp(`/sandboxes/(?!${id})sbx_\\w+/$`)),
        row.getByRole("button", { name: "Fork" }).click(),
      ]);
      const copy = /\/sandboxes\/(sbx_\w+)\/$/.exec(page.url())?.[1] as string;
      expect(page.url()).toBe(`${server.url}/sandboxes/${copy}/`);
      expect(await page.textContent("#flash")).toContain(`Forked ${id} as ${copy}`);
      // the copy's own dashboard lists the source's payment
      expect(await page.locator(`a[href$="/dashboard/transactions/${orderId}"]`).count()).toBeGreaterThan(0);

      // back on the root's list, both are there
      await page.goto(`${server.url}/`);
      expect(await page.locator("#sandboxes tbody tr").count()).toBe(2);

      // the copy's Download snapshot: a file that loads as a new sandbox holding the payment
      await page.goto(`${server.url}/sandboxes/${copy}/`);
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Download snapshot" }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(new RegExp(`^${copy}-.*\\.paysandbox$`));
      const file = readFileSync((await download.path()) as string);
      const loaded = await fetch(`${server.url}/_sandbox/sandboxes?name=downloaded`, {
        method: "POST",
        headers: { "content-type": "application/vnd.paysandbox.snapshot" },
        body: new Uint8Array(file),
      });
      expect(loaded.status).toBe(201);
      const third = `${server.url}/sandboxes/${((await loaded.json()) as { id: string }).id}`;
      const token = await post(`${third}/api/v1/auth`, {
        merchantKey: BUILTIN.merchantKey,
        merchantSecret: BUILTIN.merchantSecret,
      });
      const status = await fetch(`${third}/api/v1/payments/card/status/${orderId}`, {
        headers: { authorization: String(token.body.token) },
      });
      expect(((await status.json()) as { transactionStatus: string }).transactionStatus).toBe("SUCCEED");
    } finally {
      await context.close();
    }
  });
});
