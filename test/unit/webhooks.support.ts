/**
 * Shared by the webhook tests: a context on a ManualClock, an enqueue shortcut, and receivers the
 * shared helper does not cover (one that never answers). Not a test file itself.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { defaultConfig } from "../../src/config.js";
import { type AppContext, createContext } from "../../src/context.js";
import type { Db } from "../../src/db/client.js";
import type { CardCallback } from "../../src/modules/payments/payments.wire.js";
import { asStatus } from "../../src/modules/transactions/transitions.js";
import { ManualClock } from "../../src/platform/clock.js";
import { sequentialIds } from "../../src/platform/ids.js";
import type { DispatcherOptions } from "../../src/webhooks/dispatcher.js";
import type { EnqueueInput } from "../../src/webhooks/outbox.js";
import { T0 } from "../helpers/harness.js";

export const MINUTE = 60_000;

export interface TestCtx {
  ctx: AppContext;
  clock: ManualClock;
  close(): Promise<void>;
}

export function makeCtx(opts: { db?: Db; dbPath?: string; start?: number; webhooks?: DispatcherOptions } = {}): TestCtx {
  const clock = new ManualClock(opts.start ?? T0);
  const config = defaultConfig({ publicUrl: "http://sandbox.test", ...(opts.dbPath ? { db: opts.dbPath } : {}) });
  const ctx = createContext({
    config,
    clock,
    ids: sequentialIds(),
    ...(opts.db ? { db: opts.db } : {}),
    webhooks: opts.webhooks,
  });
  return {
    ctx,
    clock,
    async close() {
      await ctx.work.idle();
      await ctx.webhooks.close();
      ctx.db.$client.close();
    },
  };
}

/** A card-payment callback for transaction `tx` to `url`, enqueued as a service would (then poke). */
export function enqueueCard(
  ctx: AppContext,
  url: string,
  tx: string,
  status = "SUCCEED",
  extra: Partial<EnqueueInput> = {},
): string {
  const merchant = ctx.merchants.byKey("sandbox_merchant_key");
  if (!merchant) throw new Error("built-in merchant missing");
  const id = ctx.outbox.enqueue({
    merchant,
    kind: "card_payment",
    callbackUrl: url,
    paymentMethod: "card",
    transactionId: tx,
    eventStatus: status,
    // a whole card payment callback, as the card presenter writes one (the journal and receivers check it against /openapi.json)
    body: {
      transactionId: tx,
      requestId: `req-${tx}`,
      mid: merchant.mid,
      transactionStatus: asStatus(status),
      declineCode: status === "FAILED" ? 2 : null,
      cardMask: "411111******1111",
      cardHolder: null,
      orderCurrency: "USD",
      processedCurrency: "USD",
      orderAmount: 20.5,
      processedAmount: 20.5,
      conversionRate: 1,
      callbackUrl: url,
      billingDetails: {},
      order: {},
      createdAt: "2026-01-15T12:00:00.000Z",
    } satisfies CardCallback,
    ...extra,
  });
  if (!id) throw new Error("nothing enqueued");
  return id;
}

/** A server that reads each request and never answers (until closed). */
export interface SilentServer {
  url: string;
  hits: () => number;
  /** Resolves once `n` requests are waiting for an answer that never comes. */
  waitForHits(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  let hits = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server: Server = createServer((req: IncomingMessage, _res: ServerResponse) => {
    hits++;
    req.resume();
    for (const w of [...waiters]) {
      if (hits >= w.n) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    waitForHits: (n) => (hits >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface SwitchServer {
  url: string;
  /** `hang`: read the request and never answer; a number: answer with that status. */
  mode: "hang" | number;
  received: Array<{ deliveryId: string; attempt: string }>;
  waitFor(n: number): Promise<void>;
  /** Drops the connections of the requests left hanging (as a dying peer would). */
  dropHanging(): void;
  close(): Promise<void>;
}

/** A receiver whose behaviour the test switches between hanging and answering. */
export async function startSwitchServer(): Promise<SwitchServer> {
  const hanging: ServerResponse[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const self: SwitchServer = {
    url: "",
    mode: 200,
    received: [],
    waitFor: (n) =>
      self.received.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    dropHanging: () => {
      for (const res of hanging.splice(0)) res.socket?.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      self.received.push({
        deliveryId: String(req.headers["x-sandbox-delivery-id"]),
        attempt: String(req.headers["x-sandbox-attempt"]),
      });
      if (self.mode === "hang") hanging.push(res);
      else {
        res.statusCode = self.mode;
        res.end("ok");
      }
      for (const w of [...waiters]) {
        if (self.received.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return self;
}

/** A port nothing listens on (bound, then released). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
