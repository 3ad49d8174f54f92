/**
 * A real HTTP webhook receiver on 127.0.0.1: records every request and answers with the
 * status the test chooses (a fixed one, or a queue consumed one per request).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { checkCallback } from "./conformance.js";

export interface ReceivedHook {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  raw: string;
  body: unknown;
}

export interface Receiver {
  url: string;
  received: ReceivedHook[];
  /** Answers these statuses in turn, then `defaultStatus`. */
  respondWith(...statuses: number[]): void;
  defaultStatus: number;
  /** Resolves once `n` requests have arrived (no sleeping: it waits on arrivals). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedHook[] = [];
  const queue: number[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const r: Partial<Receiver> & { defaultStatus: number } = { defaultStatus: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const u = new URL(req.url ?? "/", "http://x");
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {}
      received.push({ method: req.method ?? "", path: u.pathname, query: u.searchParams, headers: req.headers, raw, body });
      // a signed callback's body against the document's webhooks (test/helpers/conformance.ts)
      if (req.headers["x-checksum"] !== undefined) checkCallback(u.pathname, body);
      res.statusCode = queue.shift() ?? r.defaultStatus;
      res.end("ok");
      for (const w of [...waiters]) {
        if (received.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(r, {
    url: `http://127.0.0.1:${port}`,
    received,
    respondWith: (...statuses: number[]) => {
      queue.push(...statuses);
    },
    waitFor(n: number, timeoutMs = 10_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise<ReceivedHook[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${n} webhooks, got ${received.length}`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  }) as Receiver;
}
