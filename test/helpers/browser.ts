/**
 * Headless Chromium for the browser suites (Debian's package; playwright's own download does not
 * work here), and the merchant's shop those suites land on.
 */
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { type Receiver, startReceiver } from "./receiver.js";
import { type RunningServer, startServer } from "./server.js";
import { fetchToken } from "./token.js";

export const CHROMIUM = "/usr/bin/chromium";

/** Whether Chromium is installed; says so once for `suite` when it is not (the suite is then skipped). */
export function hasChromium(suite: string): boolean {
  const ok = existsSync(CHROMIUM);
  if (!ok) console.warn(`${suite}: skipped, ${CHROMIUM} is absent (.ci/run installs it with apt)`);
  return ok;
}

export const launchChromium = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });

/**
 * The merchant's shop: any path is a landing page (`<h1 id="landed">` with the path), and
 * `/checkout?frame=URL` frames a sandbox page, as a shop embeds a challenge or a hosted page.
 */
export async function startShop(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://shop");
    res.setHeader("content-type", "text/html; charset=utf-8");
    if (u.pathname === "/checkout") {
      const src = u.searchParams.get("frame") ?? "";
      res.end(
        `<!doctype html><title>checkout</title><h1>Checkout</h1><iframe src="${src.replace(/"/g, "&quot;")}" width="500" height="700"></iframe>`,
      );
    } else {
      res.end(`<!doctype html><title>${u.pathname}</title><h1 id="landed">${u.pathname}</h1>`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * What a shopper-page suite runs against: the real server (`args` to its start), a webhook
 * receiver, the merchant's shop, Chromium, and a token of the built-in merchant. `close` stops
 * whatever started.
 */
export interface ShopperRig {
  sandbox: RunningServer;
  receiver: Receiver;
  shop: { url: string; server: Server };
  browser: Browser;
  token: string;
  /** The callbacks of one transaction received so far. */
  hooksFor(id: string): Record<string, unknown>[];
  /** Waits on arrivals (no sleeping) until `n` callbacks of the transaction are in. */
  waitForHooks(id: string, n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startShopperRig(opts: { args?: string[] } = {}): Promise<ShopperRig> {
  const [sandbox, receiver, shop] = await Promise.all([startServer({ args: opts.args ?? [] }), startReceiver(), startShop()]);
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await sandbox.stop();
    await receiver.close();
    await new Promise((resolve) => shop.server.close(resolve));
  };
  try {
    browser = await launchChromium();
    const token = await fetchToken(sandbox.url);
    const hooksFor = (id: string) =>
      receiver.received.map((h) => h.body as Record<string, unknown>).filter((b) => b.transactionId === id);
    const waitForHooks = async (id: string, n: number) => {
      while (hooksFor(id).length < n) await receiver.waitFor(receiver.received.length + 1);
    };
    return { sandbox, receiver, shop, browser, token, hooksFor, waitForHooks, close };
  } catch (err) {
    await close();
    throw err;
  }
}
