/**
 * A clock advance runs its due work in slices, lets other requests in between,
 * and stops where it is when its client goes away (what ran stays done; the clock is not past it).
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, T0, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  await s?.close();
});

const MINUTE = 60_000;

/** A DueWork due every virtual minute that burns ~1 ms of real time per run (busy, synchronous). */
function busySource(runs: number[]) {
  let next = T0 + MINUTE;
  return {
    name: "busy",
    nextDueAt: () => next,
    run(now: number) {
      const end = performance.now() + 1;
      while (performance.now() < end) {}
      runs.push(now);
      next = now + MINUTE;
      return {};
    },
  };
}

async function listen(): Promise<string> {
  server = createServer(getRequestListener(s.app.fetch));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe("a long clock advance", () => {
  it("answers health in between, and stops where it is once its client disconnects", async () => {
    s = makeSandbox();
    const runs: number[] = [];
    s.ctx.work.register(busySource(runs));
    const base = await listen();

    // a year of minutes would take ~9 minutes of busy work: the client gives up after a health check
    const req = request(`${base}/_sandbox/clock/advance`, { method: "POST", headers: { "content-type": "application/json" } });
    req.on("error", () => undefined);
    req.end(JSON.stringify({ by: "P1Y" }));
    while (runs.length < 20) await new Promise((resolve) => setImmediate(resolve));

    const health = await fetch(`${base}/_sandbox/health`);
    expect(health.status).toBe(200);
    const runsAtHealth = runs.length;
    expect(runsAtHealth).toBeLessThan(525_600); // answered while the advance was still going

    req.destroy();
    await s.ctx.work.idle();
    const stoppedAt = s.clock.nowMs();
    expect(runs.length).toBeLessThan(60_000);
    // the clock is exactly at the last instant that ran: everything before it is done, nothing after
    expect(stoppedAt).toBe(runs.at(-1));
    expect(runs).toEqual(runs.map((_, i) => T0 + (i + 1) * MINUTE));

    // and it carries on from there on the next advance
    const more = await s.http.post("/_sandbox/clock/advance").send({ by: "PT3M" });
    expect(more.status).toBe(200);
    expect(runs.at(-1)).toBe(stoppedAt + 3 * MINUTE);
  });
});
