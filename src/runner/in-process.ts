/**
 * A fresh sandbox for one scenario file, inside the `paysandbox run` process (docs/run.md):
 * `:memory:`, a manual clock at the file's `startTime` (or now) that moves only when a step
 * advances it, the file's merchants, rates, cards and rules loaded. Requests go through
 * `app.request()`: no port is opened, so one file's result never depends on another's.
 */
import pino from "pino";
import { createApp } from "../app.js";
import { createServer } from "../compose.js";
import { defaultConfig } from "../config.js";
import { createContext } from "../context.js";
import { closeDb } from "../db/client.js";
import { ManualClock, parseInstant, realNowMs } from "../platform/clock.js";
import type { Scenario } from "../scenarios/scenario.schema.js";
import { httpTarget } from "./http-target.js";
import { pathOf, type Reply, type Target } from "./target.js";

/** The base of the URLs an in-process sandbox hands out (challengeUrl...); nothing listens there. */
export const IN_PROCESS_URL = "http://paysandbox.run";

export function inProcessTarget(scenario: Scenario, source: string): Target {
  const start = scenario.startTime === undefined ? realNowMs() : (parseInstant(scenario.startTime) as number);
  const clock = new ManualClock(start);
  const config = defaultConfig({ db: ":memory:", publicUrl: IN_PROCESS_URL, startTime: start, logLevel: "silent" });
  // webhooks to the run's own receiver answer at once; anything else gets the contract's 10 s
  const ctx = createContext({ config, clock, logger: pino({ level: "silent" }) });
  ctx.scenarios.load(scenario, source);
  const app = createApp(ctx);
  return {
    label: "in-process",
    local: pathOf,
    async send(method, path, init = {}): Promise<Reply> {
      const res = await app.request(`${IN_PROCESS_URL}${path}`, { method, headers: init.headers, body: init.body });
      return { status: res.status, headers: res.headers, text: await res.text() };
    },
    async runDue() {
      await ctx.work.idle();
      await ctx.work.runUntil();
    },
    async now() {
      return clock.nowMs();
    },
    async close() {
      await ctx.work.idle();
      await ctx.webhooks.close();
      closeDb(ctx.db);
      return undefined;
    },
  };
}

/**
 * A file with `snapshot:` (docs/snapshots.md), inside the command: the whole server composed on
 * `:memory:` as `paysandbox start` composes it, and the file's sandbox started from the snapshot
 * through its `POST /_sandbox/sandboxes`, exactly as against `--target` (http-target.ts), with
 * requests handed to the server in this process. Real time stands still for it, so the sandbox's
 * clock (at the snapshot's now) moves only when a step advances it, as a fresh in-process one's does.
 */
export async function snapshotInProcessTarget(scenario: Scenario, snapshot: Uint8Array, name: string): Promise<Target> {
  const wallMs = realNowMs();
  const config = defaultConfig({ db: ":memory:", publicUrl: IN_PROCESS_URL, logLevel: "silent" });
  const server = createServer({ config, clock: new ManualClock(wallMs), wallNow: () => wallMs });
  const stop = async () => {
    await server.closeSandboxes(0);
    await server.root.work.idle();
    await server.root.webhooks.close();
    closeDb(server.root.db);
  };
  let target: Target;
  try {
    target = await httpTarget(IN_PROCESS_URL, scenario, {
      name,
      snapshot,
      fetch: async (url, init) => server.fetch(new Request(url, init)),
    });
  } catch (err) {
    await stop();
    throw err;
  }
  const { sandbox: _sandbox, ...rest } = target;
  return {
    ...rest,
    label: "in-process",
    async close() {
      try {
        return await target.close();
      } finally {
        await stop();
      }
    },
  };
}
