/**
 * During one clock advance that charges N due subscriptions (100,000, then
 * 1,000,000, each in its own process on a fresh database; BENCH_SIZE=n for one size) and delivers
 * their N callbacks, `GET /_sandbox/health` keeps answering: its p99,
 * one request at a time on a keep-alive socket, against the p99 of the same probe on the same
 * server idle just before (p99 ≤ 20 ms, or as a ratio to the idle floor of the same
 * run, since this shared machine's noise alone reaches that). Also the advance's time (1,000,000
 * due charges in ≤ 60 s) and the server's peak RSS. Against the built server on a database seeded
 * before it starts; the callbacks go to a local receiver answering 200 (in its own process).
 * Run alone: `npm run build && npx tsx bench/advance.ts`; BENCH_MAIN=/other/dist/main.js runs
 * another build (A/B), BENCH_NODE_ARGS="--cpu-prof" passes node flags to the server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { ManualClock } from "../src/platform/clock.js";
import {
  eachSizeInChild,
  emit,
  healthProbe,
  load1,
  peakRssMb,
  probeFor,
  processCpuMs,
  seedDueSubscriptions,
  startCountingReceiver,
  startSandbox,
} from "./lib.js";

// each size in a child process of its own (its own peak RSS), one after the other
if (!process.env.BENCH_SIZE) process.exit((await eachSizeInChild(import.meta.url, [100_000, 1_000_000])) ? 0 : 1);

const SIZE = Number(process.env.BENCH_SIZE);
const NOW = Date.UTC(2026, 2, 1, 0, 0, 0); // every seeded subscription is due at 2026-03-01T00:00Z

const dir = mkdtempSync(join(tmpdir(), "paysandbox-bench-advance-"));
const dbPath = join(dir, "sandbox.db");
const receiver = await startCountingReceiver("/cb");

// migrate and seed through a context, then close it: the server opens the same file
{
  const ctx = createContext({ config: defaultConfig({ db: dbPath }), clock: new ManualClock(NOW) });
  const sqlite = ctx.db.$client;
  seedDueSubscriptions(sqlite, {
    size: SIZE,
    profile: ctx.outcomes.profileFor("4111111111111111"),
    now: NOW,
    callbackUrl: receiver.url,
    createdAt: NOW - 1,
  });
  sqlite.close();
}

const server = await startSandbox({
  dbPath,
  args: ["--start-time", new Date(NOW - 3_600_000).toISOString()],
  ...(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {}),
  nodeArgs: process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [],
});
const { url, pid } = server;
try {
  const idle = await probeFor(url, 3000);
  const t0 = performance.now();
  const cpu0 = processCpuMs(pid) ?? 0;
  const probe = healthProbe(url);
  // node:http, no timeout: fetch gives up on headers after 300 s, and a 1,000,000-charge advance answers later
  const ran = await new Promise<{ ran: { charges: number; deliveries: number } }>((resolve, reject) => {
    const req = request(
      `${url}/_sandbox/clock/advance`,
      { method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => {
          text += d.toString();
        });
        res.on("end", () => resolve(JSON.parse(text) as { ran: { charges: number; deliveries: number } }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ by: "PT2H" }));
  });
  const busy = await probe.end();
  const seconds = (performance.now() - t0) / 1000;
  const cpuSeconds = ((processCpuMs(pid) ?? 0) - cpu0) / 1000;
  const peakRss = peakRssMb(pid);
  const received = await receiver.received();
  console.log(
    `advance over ${SIZE} due subscriptions: ${ran.ran.charges} charges, ${ran.ran.deliveries} deliveries (receiver got ${received}) in ${seconds.toFixed(1)} s, server CPU ${cpuSeconds.toFixed(1)} s; ` +
      `health during it: ${busy.probes} calls, p50 ${busy.p50} ms, p99 ${busy.p99} ms, max ${busy.max} ms; idle just before: ` +
      `p50 ${idle.p50} ms, p99 ${idle.p99} ms: p99 ${(busy.p99 / idle.p99).toFixed(1)}× idle (target p99 ≤ 20 ms: ${busy.p99 <= 20 ? "met" : "MISSED"}); ` +
      `server peak RSS ${peakRss} MB (load ${load1()})`,
  );
  emit("advance", {
    size: SIZE,
    seconds: Number(seconds.toFixed(2)),
    cpuSeconds: Number(cpuSeconds.toFixed(1)),
    charges: ran.ran.charges,
    deliveries: ran.ran.deliveries,
    healthP50Ms: busy.p50,
    healthP99Ms: busy.p99,
    healthMaxMs: busy.max,
    idleP99Ms: idle.p99,
    p99VsIdle: Number((busy.p99 / idle.p99).toFixed(1)),
    peakRssMb: peakRss,
    target: SIZE >= 1_000_000 ? "<=60s,p99<=20ms" : "p99<=20ms",
    pass: busy.p99 <= 20 && (SIZE < 1_000_000 || seconds <= 60),
  });
} finally {
  await server.stop();
  receiver.stop();
  rmSync(dir, { recursive: true, force: true });
}
