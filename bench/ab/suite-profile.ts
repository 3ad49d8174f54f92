/**
 * Where a test file's time goes in the forking suite (bench/sandbox-storm.ts part 6, `from`;
 * docs/performance.md "Sandboxes at once"): one built server (`BENCH_MAIN` or dist/main.js) on a file
 * (`PROFILE_STORAGE=file`) or `:memory:`, the suite's world built, two warm-up suites, then the 32
 * files one after another with each step's CLOCK_MONOTONIC bounds kept as windows (`get` the fork,
 * `token`, `refund`, `status`, `delete`; several spans a window) and each step's client-side wall
 * and server CPU printed (PROFILE_FILES of them, default 32; PROFILE_CPU=0 and a few hundred for
 * the CPU without the profiler's own), then the suite 4 at once (`suite`). The windows go to `<dir>/windows.json`, which
 * bench/ab/profile-summary.ts and profile-tree.ts read with the server's `--cpu-prof` (PROFILE_CPU=0:
 * no profile).
 *
 *   PROFILE_STORAGE=file PROFILE_DIR=/tmp/sf-prof npx tsx bench/ab/suite-profile.ts
 *   npx tsx bench/ab/profile-summary.ts /tmp/sf-prof get 32
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { median, type PhaseHook, processCpuMs, type SuitePhase, startSandbox, suiteFiles, suitePrepare } from "../lib.js";

const dir = process.env.PROFILE_DIR ?? "/tmp/sf-prof";
const storage = process.env.PROFILE_STORAGE ?? "memory";
const profile = process.env.PROFILE_CPU !== "0";
/** Test files run one at a time (the windows; PROFILE_FILES). */
const SERIAL = Number(process.env.PROFILE_FILES ?? 32);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const windows: Record<string, Array<[number, number]>> = {};
// client-side ms of each step, one file at a time
const wall: Record<string, number[]> = {};
// server CPU of each step (every thread), summed over the files: /proc's 10 ms ticks, so over many files
const cpu: Record<string, number> = {};

const server = await startSandbox({
  ...(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {}),
  ...(storage === "memory" ? { dbPath: ":memory:" } : {}),
  nodeArgs: profile ? ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${process.env.PROFILE_INTERVAL ?? 100}`] : [],
});
try {
  const create = await suitePrepare(server.url, "from");
  for (let i = 0; i < 2; i++) await suiteFiles(server.url, create, { tag: `warm${i}`, parallel: 4 });
  const timed: PhaseHook = async (phase, step) => {
    const c0 = processCpuMs(server.pid) ?? 0;
    const t0 = nowUs();
    try {
      return await step();
    } finally {
      const t1 = nowUs();
      windows[phase] = [...(windows[phase] ?? []), [t0, t1]];
      wall[phase] = [...(wall[phase] ?? []), (t1 - t0) / 1000];
      cpu[phase] = (cpu[phase] ?? 0) + (processCpuMs(server.pid) ?? 0) - c0;
    }
  };
  await new Promise((r) => setTimeout(r, 500));
  const cpu0 = processCpuMs(server.pid) ?? 0;
  const t0 = nowUs();
  await suiteFiles(server.url, create, { tag: "serial", parallel: 1, phase: timed, files: SERIAL });
  const serialMs = ((nowUs() - t0) / 1000) * (32 / SERIAL);
  const serialCpu = (((processCpuMs(server.pid) ?? 0) - cpu0) * 32) / SERIAL;
  await new Promise((r) => setTimeout(r, 500));
  const cpu1 = processCpuMs(server.pid) ?? 0;
  const client1 = process.cpuUsage();
  const t1 = nowUs();
  await suiteFiles(server.url, create, { tag: "parallel", parallel: 4 });
  windows.suite = [[t1, nowUs()]];
  const parallelMs = (nowUs() - t1) / 1000;
  const parallelCpu = (processCpuMs(server.pid) ?? 0) - cpu1;
  const used = process.cpuUsage(client1);
  const clientCpu = (used.user + used.system) / 1000;
  const phases: SuitePhase[] = ["get", "token", "refund", "status", "delete"];
  console.log(`${storage}, load ${loadavg()[0]?.toFixed(1)}: client-side wall a file, median ms (one file at a time)`);
  for (const p of phases) {
    console.log(
      `  ${p.padEnd(7)} ${median(wall[p] ?? []).toFixed(2)}, server CPU ${((cpu[p] ?? 0) / SERIAL).toFixed(2)} ms a file`,
    );
  }
  console.log(
    `  one at a time: ${(serialMs / 32).toFixed(2)} ms a file, server CPU ${(serialCpu / 32).toFixed(2)} ms a file (all threads)`,
  );
  console.log(
    `  4 at once: ${parallelMs.toFixed(0)} ms the 32 files (world not included), server CPU ${(parallelCpu / 32).toFixed(2)} ms a file, this client's ${(clientCpu / 32).toFixed(2)}`,
  );
} finally {
  await server.stop();
}
writeFileSync(join(dir, "windows.json"), JSON.stringify(windows));
