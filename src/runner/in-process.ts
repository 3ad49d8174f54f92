/**
 * A fresh sandbox for one scenario file, inside the `paysandbox run` process (docs/run.md):
 * `:memory:`, a manual clock at the file's `startTime` (or now) that moves only when a step
 * advances it, the file's merchants, rates, cards and rules loaded. Requests go through
 * `app.request()`: no port is opened, so one file's result never depends on another's.
 */
import pino from "pino";
import { createApp } from "../app.js";
import { defaultConfig } from "../config.js";
import { createContext } from "../context.js";
import { closeDb } from "../db/client.js";
import { ManualClock, parseInstant, realNowMs } from "../platform/clock.js";
import type { Scenario } from "../scenarios/scenario.schema.js";
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
