/**
 * The forking suite (bench/lib/suite.ts, `from`) on two builds at once, alternated suite by suite:
 * both servers up side by side (`BENCH_MAIN` or dist/main.js as A, `BENCH_COMPARE` as B), each with
 * its world, a warm-up, then `AB_RUNS` suites on each, A B B A ..., so that the shared machine's load
 * falls on both alike. Prints each side's median wall (the 32 files, the world's set-up not included)
 * and server CPU a test file (every thread), with the load.
 *
 *   BENCH_COMPARE=/tmp/base/dist/main.js AB_STORAGE=memory AB_RUNS=12 npx tsx bench/ab/suite-ab.ts
 */
import { loadavg } from "node:os";
import { median, processCpuMs, type Running, SUITE_FILES, startSandbox, suiteFiles, suitePrepare } from "../lib.js";

const storage = process.env.AB_STORAGE ?? "memory";
const runs = Number(process.env.AB_RUNS ?? 12);
const compare = process.env.BENCH_COMPARE;
if (!compare) throw new Error("BENCH_COMPARE=<other dist/main.js> is needed");

const start = (main: string | undefined) =>
  startSandbox({ ...(main ? { main } : {}), ...(storage === "memory" ? { dbPath: ":memory:" } : {}) });
const sides: Record<
  "A" | "B",
  { server: Running; create: Awaited<ReturnType<typeof suitePrepare>>; wall: number[]; cpu: number[] }
> = {} as never;
for (const [side, main] of [
  ["A", process.env.BENCH_MAIN],
  ["B", compare],
] as const) {
  const server = await start(main);
  sides[side] = { server, create: await suitePrepare(server.url, "from"), wall: [], cpu: [] };
}
const load0 = loadavg()[0] ?? 0;
try {
  for (const side of ["A", "B"] as const)
    for (let i = 0; i < 2; i++) await suiteFiles(sides[side].server.url, sides[side].create, { tag: `warm${i}`, parallel: 4 });
  for (let i = 0; i < runs; i++) {
    for (const side of i % 2 === 0 ? (["A", "B"] as const) : (["B", "A"] as const)) {
      const s = sides[side];
      const cpu0 = processCpuMs(s.server.pid) ?? 0;
      const t0 = performance.now();
      await suiteFiles(s.server.url, s.create, { tag: `run${i}`, parallel: 4 });
      s.wall.push(performance.now() - t0);
      s.cpu.push(((processCpuMs(s.server.pid) ?? 0) - cpu0) / SUITE_FILES);
    }
  }
} finally {
  for (const side of ["A", "B"] as const) await sides[side].server.stop();
}
console.log(`${storage}, ${runs} suites a side, load ${load0.toFixed(1)} to ${loadavg()[0]?.toFixed(1)}`);
for (const side of ["A", "B"] as const) {
  const s = sides[side];
  console.log(
    `  ${side}: 32 files ${median(s.wall).toFixed(0)} ms (${s.wall.map((x) => x.toFixed(0)).join(" ")}), server CPU a file ${median(s.cpu).toFixed(2)} ms`,
  );
}
