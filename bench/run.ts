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
/** Every result line as printed. */
const raw: Row[] = [];
const failed: string[] = [];
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const t0 = performance.now();
  const { code, results } = await runScript(file);
  console.log(`=== ${file}: exit ${code} after ${((performance.now() - t0) / 1000).toFixed(1)} s ===`);
  if (code !== 0) failed.push(file);
  raw.push(...results);
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

/**
 * The per-payment targets beside their floors, in one place (docs/performance.md "The cost account"):
 * each is a field of a result line above; a line whose benchmark did not run is left out.
 */
// [what, result line, field, ">=" or "<=" the bound; none: shown beside the others]
const TARGETS: Array<[string, string, string, ">=" | "<=" | "", number]> = [
  ["card payment, no callback: req/s ÷ insert floor's", "card-payment-no-callback", "ratio", ">=", 0.7],
  ["card payment, no callback ÷ floor (cost account)", "cost-no-callback", "vsFloor", ">=", 0.7],
  ["beside it: a stateless stub ÷ floor (cost account)", "cost-floor-stub", "vsFloor", "", 0],
  ["beside it: the payment's rows alone ÷ floor (cost account)", "cost-floor-rows", "vsFloor", "", 0],
  ["card payment + webhook: req/s ÷ insert floor's", "card-payment", "ratio", ">=", 0.5],
  ["card payment + webhook ÷ floor (cost account)", "cost-webhook", "vsFloor", ">=", 0.5],
  ["recording on vs off: % of throughput lost (events: no switch)", "recording-cost", "loss", "<=", 5],
  ["event log + recording: SQL µs per payment + webhook", "cost-webhook", "eventsRecordingSqlUs", "", 0],
  ["1 connection: p50 ÷ the insert floor's p50", "card-payment-1conn", "p50VsFloor", "<=", 2],
  ["1 connection, alternated with the floor: p50 ÷ its p50", "one-connection", "p50VsFloor", "<=", 2],
  ["fresh server: first 1,000 sequential ÷ the next 1,000", "warmup", "vsWarm", "<=", 1.3],
];
const targetRows: Row[] = [];
for (const [what, bench, field, op, bound] of TARGETS) {
  // a number, or a text such as "4.2%" (its number)
  const v = Number.parseFloat(String(raw.find((x) => x.bench === bench)?.[field]));
  if (!Number.isFinite(v)) continue;
  const met = op === ">=" ? v >= bound : v <= bound;
  targetRows.push({ target: what, value: v, wanted: op ? `${op} ${bound}` : "", met: op ? (met ? "yes" : "NO") : "" });
}
if (targetRows.length > 0) {
  console.log('\n=== the per-payment targets (docs/performance.md "The cost account") ===');
  printTable(targetRows);
}
if (files.length === 0) console.log("no benchmark matched");
if (failed.length > 0) {
  console.error(`failed: ${failed.join(", ")}`);
  process.exitCode = 1;
}
