/**
 * What recording a session costs the payment path (docs/recording.md): card payments per
 * second with a callbackUrl on a local receiver (so each payment is also a webhook), 32 connections,
 * against two built servers side by side on WAL SQLite files, one recording (the default,
 * SANDBOX_RECORDING_KEEP=10000) and one not (SANDBOX_RECORDING_KEEP=0), alternated off, on, off, on
 * so drift on a shared machine falls on both; the server's CPU µs per payment beside each (the figure
 * other work on the machine moves least).
 *
 * Target: recording costs ≤ 5% of the throughput (the mean of the two pairs), measured in the same run.
 * Run with `npx tsx bench/recording.ts` after `node scripts/build.mjs` (BENCH_DURATION=s per phase).
 * Prints one JSON line {"bench":"recording-cost","offRps","onRps","loss","offCpuUs","onCpuUs","pass"}.
 */
import { emit, merchantToken, paymentLoad, startCountingReceiver, startSandbox } from "./lib.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Math.min(3, DURATION);
const CONNECTIONS = 32;

const receiver = await startCountingReceiver();
const off = await startSandbox({ env: { SANDBOX_RECORDING_KEEP: "0" } });
const on = await startSandbox();
try {
  const tokens = new Map([
    [off, await merchantToken(off.url)],
    [on, await merchantToken(on.url)],
  ]);
  const pay = (server: typeof on, duration: number) =>
    paymentLoad(server, { token: tokens.get(server) ?? "", callbackUrl: receiver.url, connections: CONNECTIONS, duration });
  await pay(off, WARMUP);
  await pay(on, WARMUP);
  const results = { off: [] as Array<Awaited<ReturnType<typeof pay>>>, on: [] as Array<Awaited<ReturnType<typeof pay>>> };
  for (let i = 0; i < 2; i++) {
    results.off.push(await pay(off, DURATION));
    results.on.push(await pay(on, DURATION));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
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
    runs: [...results.off, ...results.on].map((r) => r.rps).join("/"),
    loader: results.on[0]?.loader,
    pass: loss <= 5 && !broken,
  });
} finally {
  await off.stop();
  await on.stop();
  receiver.stop();
}
