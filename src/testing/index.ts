/**
 * `paysandbox/testing`: a sandbox per test file, in the test's own process (docs/configuration.md "the same
 * server"): the real app on `:memory:`, listening on a free port of 127.0.0.1, with a real HTTP
 * receiver for its webhooks. Parallel test files each get their own, so one moving its clock never
 * disturbs another. An entry point like main.ts: it composes the app, nothing imports it.
 * `connectSandbox()` (connect.ts) gives the same handle for a sandbox on a running server instead.
 *
 * LIMITATIONS: the clock runs at scale 1 between advances (as `paysandbox start` does); due work
 * also runs once a real second, like the server's own timer.
 */
import { createServer, type Server } from "node:http";
import { getRequestListener } from "@hono/node-server";
import pino from "pino";
import { createApp } from "../app.js";
import { createServer as composeServer } from "../compose.js";
import { defaultConfig } from "../config.js";
import { createContext } from "../context.js";
import type { CoverageReport as ServerCoverage } from "../coverage/coverage.wire.js";
import { closeDb } from "../db/client.js";
import { serverTimeouts } from "../http/server-timeouts.js";
import { parseInstant, realNowMs, toIso, VirtualClock } from "../platform/clock.js";
import { BUILTIN_MERCHANT, type SandboxMerchant as ServerMerchant } from "../platform/fixtures.js";
import { connectSandbox, fetchSnapshot, snapshotBytes } from "./connect.js";
import { closeServer, listen, webhookReceiver } from "./receiver.js";
import type { CoverageReport, SandboxMerchant, StartSandboxOptions, TestSandbox } from "./types.js";

export { connectSandbox } from "./connect.js";
export type {
  ConnectSandboxOptions,
  CoverageArea,
  CoverageBehaviour,
  CoverageEvidence,
  CoverageReport,
  ReceivedWebhook,
  SandboxMerchant,
  SnapshotSource,
  StartSandboxOptions,
  TestSandbox,
} from "./types.js";

const DAY_MS = 86_400_000;

/** types.ts may import nothing (it ships as the .d.ts), so it spells SandboxMerchant out: tsc fails here if it parts from the server's. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameMerchantShape: Same<SandboxMerchant, ServerMerchant> = true;
/** And the coverage report, which it spells out too: tsc fails here if it parts from the route's schema. */
const _sameCoverageShape: Same<CoverageReport, ServerCoverage> = true;

function instant(value: string | Date, name: string): number {
  const ms = value instanceof Date ? value.getTime() : parseInstant(value);
  if (ms === undefined || Number.isNaN(ms)) throw new TypeError(`startSandbox: ${name} is not an ISO 8601 date-time`);
  return ms;
}

/**
 * Starts a sandbox for one test file. `await using`-free on purpose (Node 22 has no `using`): call `close()` in
 * afterAll. Resolves once the server and the receiver listen and the scenario is loaded.
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<TestSandbox> {
  if (options.snapshot !== undefined) return startFromSnapshot(options);
  const startMs = options.startTime === undefined ? undefined : instant(options.startTime, "startTime");
  const scenarioFile = typeof options.scenario === "string" ? options.scenario : undefined;
  const config = defaultConfig({ startTime: startMs, scenarios: scenarioFile ? [scenarioFile] : [] });
  const clock = new VirtualClock(startMs ?? realNowMs(), 1);
  const logger = pino({ level: options.logLevel ?? "silent" });
  let base = "";
  const ctx = createContext({ config, clock, logger, publicUrl: () => base });
  const hooks = webhookReceiver();
  let server: Server | undefined;
  const timer = setInterval(() => void ctx.work.runUntil().catch(() => undefined), 1000);
  timer.unref();
  try {
    const loadScenario = () => {
      if (scenarioFile) return ctx.scenarios.loadFile(scenarioFile);
      if (options.scenario) return ctx.scenarios.load(options.scenario, "startSandbox({scenario})");
      return undefined;
    };
    const scenario = loadScenario();
    ctx.clockStore.save();
    server = createServer(serverTimeouts(config), getRequestListener(createApp(ctx).fetch));
    const [url, hooksUrl] = await Promise.all([listen(server), listen(hooks.server)]);
    base = url;
    const first = scenario?.merchants[0] ?? BUILTIN_MERCHANT;
    const merchant: SandboxMerchant = {
      merchantKey: first.merchantKey,
      merchantSecret: first.merchantSecret,
      mid: first.mid,
      merchantId: first.merchantId,
      accountId: first.accountId,
    };

    const tokens = new Map<string, { token: string; expiresMs: number }>();
    const ttlMs = config.tokenTtlDays * DAY_MS;
    const auth = async (merchantKey = merchant.merchantKey, merchantSecret?: string) => {
      const secret = merchantSecret ?? (merchantKey === merchant.merchantKey ? merchant.merchantSecret : undefined);
      const cached = tokens.get(merchantKey);
      // a minute's margin so a token never expires between this call and the request using it
      if (cached && clock.nowMs() < cached.expiresMs - 60_000 && merchantSecret === undefined) return cached.token;
      const res = await fetch(`${url}/api/v1/auth`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ merchantKey, merchantSecret: secret }),
      });
      const body = (await res.json()) as { token?: string; errorMessage?: string };
      if (!res.ok || !body.token) throw new Error(`paysandbox auth failed (${res.status}): ${body.errorMessage ?? ""}`);
      tokens.set(merchantKey, { token: body.token, expiresMs: clock.nowMs() + ttlMs });
      return body.token;
    };

    let closed = false;
    const running = server;
    return {
      id: "root",
      url,
      merchant,
      auth,
      clock: {
        now: () => toIso(clock.nowMs()),
        advance: (by) =>
          ctx.control.advance(typeof by === "string" ? { by } : { to: by.to instanceof Date ? toIso(by.to.getTime()) : by.to }),
      },
      webhooks: { url: hooksUrl, received: hooks.received, waitFor: hooks.waitFor },
      snapshot: () => fetchSnapshot(url),
      // after the journal's read barrier, as GET /_sandbox/coverage (docs/webhooks.md)
      coverage: async () => {
        await ctx.webhooks.settled();
        return ctx.coverage.report();
      },
      async reset(opts = {}) {
        const at = opts.startTime === undefined ? undefined : instant(opts.startTime, "startTime");
        await ctx.control.reset(at === undefined ? {} : { startTime: at });
        if (!scenarioFile && options.scenario) loadScenario();
        tokens.clear();
        hooks.received.length = 0;
      },
      async close() {
        if (closed) return;
        closed = true;
        clearInterval(timer);
        await Promise.all([closeServer(running), closeServer(hooks.server)]);
        await ctx.work.idle();
        await ctx.webhooks.close();
        closeDb(ctx.db);
      },
    };
  } catch (err) {
    clearInterval(timer);
    if (server?.listening) await closeServer(server);
    if (hooks.server.listening) await closeServer(hooks.server);
    if (ctx.db.$client.open) closeDb(ctx.db);
    throw err;
  }
}

/**
 * startSandbox({snapshot}) (docs/snapshots.md): the whole server in this process (`:memory:`, as
 * `paysandbox start` composes it), and a sandbox of it started from the snapshot, behind the handle
 * connectSandbox gives: the one way a sandbox starts from a file, here as on a running server.
 * `close()` deletes that sandbox and stops the server.
 */
async function startFromSnapshot(options: StartSandboxOptions): Promise<TestSandbox> {
  for (const other of ["scenario", "startTime"] as const) {
    if (options[other] !== undefined)
      throw new TypeError(`startSandbox: ${other}: not with snapshot (the snapshot holds its state and clock)`);
  }
  const bytes = snapshotBytes(options.snapshot, "startSandbox");
  let base = "";
  const config = defaultConfig({ db: ":memory:", logLevel: options.logLevel ?? "silent" });
  const composed = composeServer({
    config,
    clock: new VirtualClock(realNowMs(), 1),
    logger: pino({ level: options.logLevel ?? "silent" }),
    publicUrl: () => base,
  });
  const server = createServer(serverTimeouts(config), getRequestListener(composed.fetch));
  // due work of the root and of its sandbox, once a real second, as the server's own timer does
  const timer = setInterval(() => void composed.tick().catch(() => undefined), 1000);
  timer.unref();
  const stop = async () => {
    clearInterval(timer);
    if (server.listening) await closeServer(server);
    await composed.closeSandboxes(0);
    await composed.root.work.idle();
    await composed.root.webhooks.close();
    if (composed.root.db.$client.open) closeDb(composed.root.db);
  };
  let sandbox: TestSandbox;
  try {
    base = await listen(server);
    // no admin token: this server has none, whatever the environment says
    sandbox = await connectSandbox(base, { snapshot: bytes, adminToken: "" });
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    ...sandbox,
    async close() {
      try {
        await sandbox.close();
      } finally {
        await stop();
      }
    },
  };
}
