/**
 * `npm run bench`: runs every bench/*.ts but lib.ts and run.ts, one at a time, each in its own
 * process (so one benchmark's warm JIT or open handles never skew the next), passes their output
 * through, collects their `{"bench": ...}` JSON lines and ends with one summary table.
 * Adding a benchmark = adding a file. `npm run bench -- foundation webhooks` runs only the files
 * whose names contain one of the words.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { printTable, ROOT, type Row } from "./lib.js";

const BENCH_DIR = join(ROOT, "bench");
const filters = process.argv.slice(2);
const files = readdirSync(BENCH_DIR)
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && f !== "lib.ts" && f !== "run.ts")
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
  .sort();

/** Runs one script through tsx; resolves with its exit code and the JSON result lines it printed. */
function runScript(file: string): Promise<{ code: number | null; results: Row[] }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ["--import", "tsx", join(BENCH_DIR, file)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const results: Row[] = [];
    let pending = "";
    const take = (line: string) => {
      if (line.startsWith('{"bench":')) {
        try {
          results.push(JSON.parse(line) as Row);
        } catch {
          // not a result line after all
        }
      }
    };
    proc.stdout.on("data", (d: Buffer) => {
      process.stdout.write(d);
      pending += d.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const l of lines) take(l.trim());
    });
    proc.on("close", (code) => {
      take(pending.trim());
      resolve({ code, results });
    });
  });
}

// The conventional result fields (see emit() in lib.ts); any other field goes to the `other` column.
const SUMMARY_COLUMNS = [
  "rps",
  "p50",
  "p99",
  "cpuUsPerReq",
  "errors",
  "non2xx",
  "floorRps",
  "vsFloor",
  "medianMs",
  "target",
  "pass",
];
const ALIASES: Record<string, string> = { ratio: "vsFloor" };

const summary: Row[] = [];
const failed: string[] = [];
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const t0 = performance.now();
  const { code, results } = await runScript(file);
  console.log(`=== ${file}: exit ${code} after ${((performance.now() - t0) / 1000).toFixed(1)} s ===`);
  if (code !== 0) failed.push(file);
  for (const r of results) {
    const row: Row = { script: file.replace(/\.ts$/, ""), bench: r.bench };
    for (const c of SUMMARY_COLUMNS) row[c] = r[c];
    for (const [alias, c] of Object.entries(ALIASES)) row[c] ??= r[alias];
    const other = Object.entries(r)
      .filter(([k]) => k !== "bench" && !SUMMARY_COLUMNS.includes(k) && !(k in ALIASES))
      .map(([k, v]) => `${k}=${v}`)
      .join(" ");
    row.other = other;
    summary.push(row);
  }
}

console.log(
  "\n=== summary (rps = req/s; p50, p99, medianMs in ms; cpuUsPerReq = server CPU µs per request; vsFloor = rps / the bare floor's) ===",
);
// Columns no result filled stay out of the table.
const used = (k: string) => summary.some((r) => r[k] !== undefined && r[k] !== "");
printTable(summary.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => used(k)))));
if (files.length === 0) console.log("no benchmark matched");
if (failed.length > 0) {
  console.error(`failed: ${failed.join(", ")}`);
  process.exitCode = 1;
}
