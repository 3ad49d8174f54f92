/**
 * What recording a session costs the payment path (docs/recording.md): card payments per
 * second with a callbackUrl on a local receiver (so each payment is also a webhook), 32 connections,
 * against two built servers side by side on WAL SQLite files, one recording (the default,
 * SANDBOX_RECORDING_KEEP=10000) and one not (SANDBOX_RECORDING_KEEP=0), alternated off, on, off, on
 * so drift on a shared machine falls on both; the server's CPU µs per payment beside each (the figure
 * other work on the machine moves least).
 *
 * Target: recording costs ≤ 5% of the throughput (the mean of the two pairs), measured in the same run.
 * Run with `npx tsx bench/recording.ts` after `node scripts/build.mjs` (BENCH_DURATION=s per phase;
 * BENCH_MAIN=/other/dist/main.js measures another build; BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/p"
 * profiles both servers, whose pids the JSON line names).
 * Prints one JSON line {"bench":"recording-cost","offRps","onRps","loss","offCpuUs","onCpuUs","pass"}.
 */
import { readFileSync } from "node:fs";
import { mainThreadCpuMs } from "./lib/process.js";
import { emit, merchantToken, paymentLoad, startCountingReceiver, startSandbox } from "./lib.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Math.min(3, DURATION);
const CONNECTIONS = 32;
/** Off-on pairs (BENCH_ROUNDS, default 2): more of them narrow the spread on a shared machine. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

const receiver = await startCountingReceiver();
/** BENCH_MAIN: another build's dist/main.js (A/B against the build before); BENCH_NODE_ARGS: the servers' node flags (`--cpu-prof`). */
const build = {
  ...(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {}),
  nodeArgs: process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [],
};
const off = await startSandbox({ ...build, env: { SANDBOX_RECORDING_KEEP: "0" } });
const on = await startSandbox(build);
try {
  const tokens = new Map([
    [off, await merchantToken(off.url)],
    [on, await merchantToken(on.url)],
  ]);
  const pay = async (server: typeof on, duration: number) => {
    const main0 = mainThreadCpuMs(server.pid) ?? 0;
    const r = await paymentLoad(server, {
      token: tokens.get(server) ?? "",
      callbackUrl: receiver.url,
      connections: CONNECTIONS,
      duration,
    });
    // the main thread's share of the server's CPU (the rest: the webhook sender, the checkpointer, V8's helpers)
    return { ...r, mainUsPerReq: r.total > 0 ? (((mainThreadCpuMs(server.pid) ?? 0) - main0) * 1000) / r.total : 0 };
  };
  await pay(off, WARMUP);
  await pay(on, WARMUP);
  const results = { off: [] as Array<Awaited<ReturnType<typeof pay>>>, on: [] as Array<Awaited<ReturnType<typeof pay>>> };
  for (let i = 0; i < ROUNDS; i++) {
    results.off.push(await pay(off, DURATION));
    results.on.push(await pay(on, DURATION));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0);
  const offRps = Math.round(mean(results.off.map((r) => r.rps)));
  const onRps = Math.round(mean(results.on.map((r) => r.rps)));
  const cpu = (rs: typeof results.on) => Math.round(mean(rs.map((r) => r.cpuUsPerReq ?? 0)));
  const loss = offRps > 0 ? Math.round((1 - onRps / offRps) * 1000) / 10 : 0;
  const broken = [...results.off, ...results.on].some((r) => r.errors > 0 || r.non2xx > 0);
  emit("recording-cost", {
    offRps,
    onRps,
    loss: `${loss}%`,
    offCpuUs: cpu(results.off),
    onCpuUs: cpu(results.on),
    offMainUs: Math.round(mean(results.off.map((r) => r.mainUsPerReq))),
    onMainUs: Math.round(mean(results.on.map((r) => r.mainUsPerReq))),
    // the medians of the rounds (BENCH_ROUNDS): steadier than the means when other work comes and goes
    median: `rps ${median(results.off.map((r) => r.rps))}/${median(results.on.map((r) => r.rps))}, cpu ${median(results.off.map((r) => r.cpuUsPerReq ?? 0))}/${median(results.on.map((r) => r.cpuUsPerReq ?? 0))}, main ${median(results.off.map((r) => r.mainUsPerReq))}/${median(results.on.map((r) => r.mainUsPerReq))}`,
    cpus: [...results.off, ...results.on].map((r) => `${r.cpuUsPerReq}/${Math.round(r.mainUsPerReq)}`).join(" "),
    runs: [...results.off, ...results.on].map((r) => r.rps).join("/"),
    loader: results.on[0]?.loader,
    pids: `${off.pid}/${on.pid}`,
    load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
    pass: loss <= 5 && !broken,
  });
} finally {
  await off.stop();
  await on.stop();
  receiver.stop();
}
