/**
 * An app on `:memory:` with a ManualClock, the built-in merchant seeded, and a supertest agent
 * (tests sit by intent: happy, error, security). `const s = makeSandbox(); const token = await s.token();`
 */
import { Writable } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import pino from "pino";
import supertest from "supertest";
import { createApp } from "../../src/app.js";
import { createServer } from "../../src/compose.js";
import { type Config, defaultConfig } from "../../src/config.js";
import { type AppContext, createContext } from "../../src/context.js";
import type { Logger } from "../../src/logger.js";
import { ManualClock } from "../../src/platform/clock.js";
import { type Ids, sequentialIds } from "../../src/platform/ids.js";
import type { DispatcherOptions } from "../../src/webhooks/dispatcher.js";
import { conforming } from "./conformance.js";
import { type Receiver, startReceiver } from "./receiver.js";

export const BUILTIN = {
  merchantKey: "sandbox_merchant_key",
  merchantSecret: "sandbox_merchant_secret",
  mid: "sandbox-mid-001",
  merchantId: 1001,
  accountId: 2001,
} as const;

/**
 * A supertest agent over an app's or a server's fetch, every answer checked against the
 * `/openapi.json` that fetch serves (test/helpers/conformance.ts). Every HTTP suite builds its agent here.
 */
// biome-ignore lint/suspicious/noExplicitAny: the env argument is passed through untouched
export function agentOf(fetch: (req: Request, env?: any) => Response | Promise<Response>): ReturnType<typeof supertest> {
  return supertest(getRequestListener(conforming(fetch)));
}

export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

export interface TestSandbox {
  ctx: AppContext;
  app: ReturnType<typeof createApp>;
  clock: ManualClock;
  http: ReturnType<typeof supertest>;
  /** A bearer token ("Bearer <jwt>") for the built-in merchant, or the given credentials. */
  token(merchantKey?: string, merchantSecret?: string): Promise<string>;
  /** Waits for due work, closes the webhook agent and the database. */
  close(): Promise<void>;
}

export function makeSandbox(opts: { config?: Partial<Config>; start?: number; ids?: Ids } = {}): TestSandbox {
  const clock = new ManualClock(opts.start ?? T0);
  const config = defaultConfig({ publicUrl: "http://sandbox.test", ...opts.config });
  const ctx = createContext({ config, clock, ids: opts.ids ?? sequentialIds() });
  const app = createApp(ctx);
  const http = agentOf(app.fetch);
  let closed = false;
  return {
    ctx,
    app,
    clock,
    http,
    async token(merchantKey: string = BUILTIN.merchantKey, merchantSecret: string = BUILTIN.merchantSecret) {
      const res = await http.post("/api/v1/auth").send({ merchantKey, merchantSecret });
      if (res.status !== 200) throw new Error(`auth failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.token as string;
    },
    async close() {
      if (closed) return;
      closed = true;
      await ctx.work.idle();
      await ctx.webhooks.close();
      if (ctx.db.$client.open) ctx.db.$client.close();
    },
  };
}

export interface TestServer {
  server: ReturnType<typeof createServer>;
  /** The root's clock. */
  clock: ManualClock;
  /** Real time as the registry sees it (TTL, sandbox clocks at scale 1): move it with `wall.advance(ms)`. */
  wall: { now(): number; advance(ms: number): void };
  http: ReturnType<typeof supertest>;
  /** POST /_sandbox/sandboxes; throws unless 201. */
  create(body?: Record<string, unknown>): Promise<{ id: string; baseUrl: string; base: string; now: string; storage: string }>;
  /** A bearer token of the built-in merchant in the sandbox at `base` ("" for the root). */
  token(base: string, merchantKey?: string, merchantSecret?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The whole server (src/compose.ts: the root and its sandboxes) on `:memory:`, a ManualClock for the
 * root and a hand-moved wall clock for the registry, behind supertest.
 */
export function makeServer(
  opts: {
    config?: Partial<Config>;
    start?: number;
    maxOpen?: number;
    idleMs?: number;
    webhooks?: DispatcherOptions;
    logger?: Logger;
    /** One commit per event-loop turn in every database, as the server runs (src/db/commit.ts). */
    groupCommit?: boolean;
  } = {},
): TestServer {
  const clock = new ManualClock(opts.start ?? T0);
  let wallMs = Date.UTC(2026, 10, 1);
  const wall = {
    now: () => wallMs,
    advance: (ms: number) => {
      wallMs += ms;
    },
  };
  const config = defaultConfig({ publicUrl: "http://sandbox.test", ...opts.config });
  const server = createServer({
    config,
    clock,
    wallNow: wall.now,
    ...(opts.webhooks ? { webhooks: opts.webhooks } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.maxOpen === undefined ? {} : { maxOpen: opts.maxOpen }),
    ...(opts.idleMs === undefined ? {} : { idleMs: opts.idleMs }),
    ...(opts.groupCommit ? { groupCommit: true } : {}),
  });
  const http = agentOf(server.fetch);
  let closed = false;
  return {
    server,
    clock,
    wall,
    http,
    async create(body = {}) {
      const res = await http.post("/_sandbox/sandboxes").send(body);
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { ...res.body, base: new URL(res.body.baseUrl).pathname };
    },
    async token(base, merchantKey: string = BUILTIN.merchantKey, merchantSecret: string = BUILTIN.merchantSecret) {
      const res = await http.post(`${base}/api/v1/auth`).send({ merchantKey, merchantSecret });
      if (res.status !== 200) throw new Error(`auth failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.token as string;
    },
    async close() {
      if (closed) return;
      closed = true;
      await server.closeSandboxes(0);
      await server.root.work.idle();
      await server.root.webhooks.close();
      if (server.root.db.$client.open) server.root.db.$client.close();
    },
  };
}

/**
 * What most HTTP suites make before each test: a sandbox (makeSandbox), a token of its built-in
 * merchant and a webhook receiver; `close` closes both.
 */
export async function sandboxWithReceiver(opts: Parameters<typeof makeSandbox>[0] = {}): Promise<{
  s: TestSandbox;
  token: string;
  receiver: Receiver;
  close(): Promise<void>;
}> {
  const s = makeSandbox(opts);
  const token = await s.token();
  const receiver = await startReceiver();
  return {
    s,
    token,
    receiver,
    async close() {
      await s.close();
      await receiver.close();
    },
  };
}

/** A sandbox whose log lines (pino at `level`) are kept in `lines`: what is logged, and what never is. */
export function loggedSandbox(level: pino.Level): {
  ctx: AppContext;
  http: ReturnType<typeof supertest>;
  lines: string[];
  close(): Promise<void>;
} {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const ctx = createContext({
    config: defaultConfig({ publicUrl: "http://sandbox.test" }),
    clock: new ManualClock(T0),
    logger: pino({ level }, stream),
  });
  return {
    ctx,
    http: agentOf(createApp(ctx).fetch),
    lines,
    /** Lets due work finish, then closes the webhook agent and the database. */
    async close() {
      await ctx.work.idle();
      await ctx.webhooks.close();
      ctx.db.$client.close();
    },
  };
}
