/**
 * Start → healthy as a user sees it (README.md "Install and run"): `npm start` on a built tree (a
 * second start: dist/ current, its V8 code cache written) and `node dist/main.js start`, each from
 * spawn to the first 200 of /_sandbox/health, the median of RUNS (default 7) fresh databases; beside
 * them, in the same runs, npm starting a script that is only `node -e ''` and a bare node:http server
 * (what any npm script and any Node server pay here). Twice: on the machine as it is, then with one
 * process per core burning CPU (a busy laptop or CI runner). The load average is printed with each.
 *
 * Run: `npm run build && npx tsx bench/start.ts` (or `npm run bench -- start`); RUNS=n.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { coldStart, emit, npmStartMs, printTable, type Row } from "./lib.js";

const RUNS = Number(process.env.RUNS ?? 7);
const cores = cpus().length;
const load1 = () => Number(loadavg()[0]?.toFixed(1));

/** One busy loop per core, each its own process, until stopped. */
function burnCores(): () => Promise<void> {
  const procs: ChildProcess[] = [];
  for (let i = 0; i < cores; i++) procs.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
  return async () => {
    const ended = procs.map((p) => new Promise((resolve) => p.once("exit", resolve)));
    for (const p of procs) p.kill("SIGKILL");
    await Promise.all(ended);
  };
}

const rows: Row[] = [];
for (const machine of ["as it is", `${cores} cores burnt`] as const) {
  const stop = machine === "as it is" ? async () => undefined : burnCores();
  try {
    const loadBefore = load1();
    const npm = await npmStartMs(RUNS);
    const node = await coldStart(RUNS, 0);
    const loadAfter = load1();
    const load = `${loadBefore}–${loadAfter}`;
    console.log(
      `${machine} (load ${load} on ${cores} cores): npm start → healthy median ${npm.medianMs} ms (${npm.runsMs.join(", ")}), ` +
        `npm of \`node -e ''\` ${npm.npmFloorMs} ms; node dist/main.js start → healthy median ${node.medianMs} ms ` +
        `(${node.runsMs.join(", ")}), a bare node:http server ${node.httpFloorMs} ms, \`node -e ''\` ${node.nodeFloorMs} ms`,
    );
    emit("start", {
      machine,
      load,
      cores,
      npmStartMs: npm.medianMs,
      npmStartRunsMs: npm.runsMs.join(" "),
      npmFloorMs: npm.npmFloorMs,
      nodeStartMs: node.medianMs,
      nodeStartRunsMs: node.runsMs.join(" "),
      httpFloorMs: node.httpFloorMs,
    });
    rows.push({
      machine,
      load,
      "npm start ms": npm.medianMs,
      "npm start range": `${Math.min(...npm.runsMs)}–${Math.max(...npm.runsMs)}`,
      "npm floor ms": npm.npmFloorMs,
      "node dist/main.js ms": node.medianMs,
      "node range": `${Math.min(...node.runsMs)}–${Math.max(...node.runsMs)}`,
      "bare http ms": node.httpFloorMs,
    });
  } finally {
    await stop();
  }
}
console.log();
printTable(rows);
