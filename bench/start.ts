/**
 * Start → healthy as a user sees it (README.md "Quick start"): `npm start` on a built tree (a second
 * start: dist/ current, its V8 code cache written) and `node dist/main.js start`, each from spawn to
 * the first 200 of /_sandbox/health on a fresh database, RUNS times (default 7, after one discarded
 * start). Twice: on the machine as it is, then with one process per core burning CPU (a busy laptop
 * or CI runner). Beside each wall time, the CPU time the started processes (npm, its shell, the
 * server) had used by then: what the start costs whatever else runs, and about what it takes on an
 * idle machine. The load average is printed with each.
 *
 * Run: `npm run build && npx tsx bench/start.ts` (or `npm run bench -- start`); RUNS=n.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { emit, freePort, median, printTable, processCpuMs, ROOT, type Row } from "./lib.js";

const RUNS = Number(process.env.RUNS ?? 7);
const cores = cpus().length;
const load1 = () => Number(loadavg()[0]?.toFixed(1));

/** `pid` and its descendants, from /proc. */
function tree(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // ended meanwhile
    }
  }
  const all = [pid];
  for (let i = 0; i < all.length; i++) for (const [p, pp] of parent) if (pp === all[i]) all.push(p);
  return all;
}

/** Spawn → first 200 of health: wall ms, and the CPU ms of the process tree by then. */
async function startOnce(way: "npm" | "node"): Promise<{ ms: number; cpuMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-start-bench-"));
  const port = await freePort();
  const flags = ["--port", String(port), "--host", "127.0.0.1", "--db", join(dir, "sandbox.db")];
  const t0 = performance.now();
  const proc: ChildProcess =
    way === "npm"
      ? spawn("npm", ["start", "--", ...flags], {
          cwd: ROOT,
          env: { ...process.env, LOG_LEVEL: "warn" },
          stdio: "ignore",
          detached: true,
        })
      : spawn(process.execPath, ["dist/main.js", "start", ...flags], {
          cwd: ROOT,
          env: { ...process.env, LOG_LEVEL: "warn" },
          stdio: "ignore",
          detached: true,
        });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`${way} start exited ${proc.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/_sandbox/health`)
        .then((r) => r.status === 200)
        .catch(() => false);
      if (ok) break;
      if (performance.now() - t0 > 60_000) throw new Error(`${way} start: no health within 60 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const ms = Math.round(performance.now() - t0);
    const cpuMs = tree(proc.pid as number).reduce((sum, p) => sum + (processCpuMs(p) ?? 0), 0);
    return { ms, cpuMs };
  } finally {
    process.kill(-(proc.pid as number), "SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(way: "npm" | "node") {
  await startOnce(way); // a build's first run writes the V8 code cache the later ones read
  const runs: Array<{ ms: number; cpuMs: number }> = [];
  for (let i = 0; i < RUNS; i++) runs.push(await startOnce(way));
  const ms = runs.map((r) => r.ms);
  return { medianMs: median(ms), minMs: Math.min(...ms), maxMs: Math.max(...ms), cpuMs: median(runs.map((r) => r.cpuMs)), ms };
}

/** One busy loop per core, each its own process, until stopped. */
function burnCores(): () => Promise<void> {
  const procs = Array.from({ length: cores }, () => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
  return async () => {
    const ended = procs.map((p) => new Promise((resolve) => p.once("exit", resolve)));
    for (const p of procs) p.kill("SIGKILL");
    await Promise.all(ended);
  };
}

const rows: Row[] = [];
for (const machine of ["as it is", `${cores} cores burnt`]) {
  const stop = machine === "as it is" ? async () => undefined : burnCores();
  try {
    const loadBefore = load1();
    const npm = await measure("npm");
    const node = await measure("node");
    const load = `${loadBefore}–${load1()}`;
    for (const [way, r] of [
      ["npm start", npm],
      ["node dist/main.js start", node],
    ] as const) {
      console.log(
        `${machine} (load ${load}, ${cores} cores): ${way} → healthy median ${r.medianMs} ms (${r.ms.join(", ")}), CPU used by then ${r.cpuMs} ms`,
      );
      emit("start", { machine, load, cores, way, medianMs: r.medianMs, runsMs: r.ms.join(" "), cpuMs: r.cpuMs });
      rows.push({ machine, load, way, "median ms": r.medianMs, "range ms": `${r.minMs}–${r.maxMs}`, "CPU ms": r.cpuMs });
    }
  } finally {
    await stop();
  }
}
console.log();
printTable(rows);
