/**
 * The webhook receiver of a `paysandbox/testing` handle, shared by `startSandbox()` and
 * `connectSandbox()`: a real HTTP server on a free port of 127.0.0.1 that records each request,
 * answers 200, and wakes the tests waiting for it. Also the listen/close helpers both use.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ReceivedWebhook } from "./types.js";

/** Listens on a free port of 127.0.0.1; resolves with its base URL. */
export function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

/** Stops a server, cutting its open connections. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export interface WebhookReceiver {
  server: Server;
  received: ReceivedWebhook[];
  waitFor(pred: (hook: ReceivedWebhook) => boolean, options?: { timeoutMs?: number }): Promise<ReceivedWebhook>;
}

/** A receiver, not listening yet (`listen(receiver.server)`). */
export function webhookReceiver(): WebhookReceiver {
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<(hook: ReceivedWebhook) => void>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const u = new URL(req.url ?? "/", "http://receiver");
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // not JSON: keep the text
      }
      const hook: ReceivedWebhook = {
        path: u.pathname,
        query: Object.fromEntries(u.searchParams),
        headers: req.headers,
        body,
        raw,
      };
      received.push(hook);
      res.end("ok");
      for (const w of [...waiters]) w(hook);
    });
  });
  const waitFor = (pred: (hook: ReceivedWebhook) => boolean, options: { timeoutMs?: number } = {}) => {
    const already = received.find(pred);
    if (already) return Promise.resolve(already);
    const timeoutMs = options.timeoutMs ?? 5000;
    return new Promise<ReceivedWebhook>((resolve, reject) => {
      const waiter = (hook: ReceivedWebhook) => {
        if (!pred(hook)) return;
        waiters.delete(waiter);
        clearTimeout(timer);
        resolve(hook);
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`webhooks.waitFor: no matching webhook within ${timeoutMs} ms (${received.length} received)`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  };
  return { server, received, waitFor };
}
