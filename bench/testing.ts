/**
 * `paysandbox/testing`: how long `startSandbox()` takes to be ready (server and
 * receiver listening, migrations run, the built-in merchant seeded) and answer its first request,
 * imported by the package name from the built dist/ as a user's suite would.
 *
 * Target: ready ≤ 150 ms (median of warm starts in one process, as a test file after the first).
 * Also printed: the first start of the process (JIT cold) and the module import.
 * Run alone with `npx tsx bench/testing.ts` (after `npm run build`).
 */
import { emit, median } from "./lib.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const TARGET_MS = 150;

const t0 = performance.now();
const { startSandbox } = await import("paysandbox/testing");
const importMs = performance.now() - t0;

const readyMs: number[] = [];
const firstAnswerMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const start = performance.now();
  const sandbox = await startSandbox({ startTime: "2026-01-15T12:00:00Z" });
  readyMs.push(performance.now() - start);
  const res = await fetch(`${sandbox.url}/_sandbox/health`);
  if (!res.ok) throw new Error(`health ${res.status}`);
  await res.arrayBuffer();
  firstAnswerMs.push(performance.now() - start);
  await sandbox.close();
}

const round = (n: number) => Math.round(n * 10) / 10;
const warm = readyMs.slice(1);
const result = {
  importMs: round(importMs),
  firstReadyMs: round(readyMs[0] ?? 0),
  readyMaxMs: round(Math.max(...warm)),
  firstAnswerMedianMs: round(median(firstAnswerMs.slice(1))),
  medianMs: round(median(warm)),
  target: `≤ ${TARGET_MS} ms`,
  pass: median(warm) <= TARGET_MS,
};
console.log(
  `startSandbox(): ready median ${result.medianMs} ms (max ${result.readyMaxMs}, ${warm.length} warm runs; ` +
    `first in the process ${result.firstReadyMs} ms; import ${result.importMs} ms) — target ≤ ${TARGET_MS} ms: ${result.pass ? "met" : "MISSED"}`,
);
emit("testing-start", result);
