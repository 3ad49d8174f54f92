/**
 * docs/api.md: /docs renders without internet. The real server (built dist/, as installed) is
 * opened in headless Chromium with every request outside the sandbox aborted; the API reference
 * still shows the operations of /openapi.json.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, launchChromium } from "../helpers/browser.js";
import { type RunningServer, startServer } from "../helpers/server.js";

const chromiumOk = hasChromium("docs.browser");

describe.skipIf(!chromiumOk)("/docs offline in headless Chromium", () => {
  let sandbox: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    sandbox = await startServer();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
  });

  it("renders the operations with all network outside the sandbox blocked", async () => {
    const page = await browser.newPage();
    const blocked: string[] = [];
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(sandbox.url) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      blocked.push(url);
      return route.abort();
    });
    const res = await page.goto(`${sandbox.url}/docs`);
    expect(res?.status()).toBe(200);
    const html = await res?.text();
    expect(html).toContain('src="/docs/assets/api-reference.js"');
    expect(html).not.toMatch(/cdn\.jsdelivr|unpkg/);
    // operations and groups of /openapi.json, rendered by the script
    await page.getByText("Exchange merchant credentials for a bearer token").first().waitFor({ timeout: 30_000 });
    const text = (await page.locator("body").textContent()) ?? "";
    expect(text).toContain("Card payments");
    expect(text).toContain("Sandbox control plane");
    expect(blocked.filter((u) => /jsdelivr|unpkg|scalar\.com/.test(u))).toEqual([]);
    await page.close();
  }, 60_000);
});
