/**
 * The transaction report at scale (docs/performance.md): 1,000,000 rows of every kind written with one
 * SQL statement into a db file, then the built server started on that file the README way, and one
 * report of all of them as CSV and as XLS, each on a fresh server. Measures the time to the last
 * byte, the server's peak RSS growth while it streams (sampled from /proc every 20 ms, over the RSS
 * after a one-row report of the same format, so module loading is not counted), the server's CPU
 * seconds for it (from /proc, worker threads included: the figure that moves least when the machine
 * is shared), and `GET /_sandbox/health` during the stream (one request at a time, bench/lib.ts
 * healthProbe): its p99 against the p99 of the same probe on the same server idle just before.
 *
 * Targets (docs/performance.md): CSV ≤ 5 s, XLS ≤ 20 s, peak RSS growth ≤ 100 MB for either; health p99 ≤ 20 ms
 * during the stream (or as a ratio to the idle p99: this shared machine's noise alone can reach it).
 * Run alone with `npx tsx bench/report.ts` (`--rows 100000` for a quicker look, `--format CSV` for
 * one format); BENCH_MAIN=/other/dist/main.js runs another build (A/B), BENCH_NODE_ARGS="--cpu-prof"
 * passes node flags to the server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../src/db/client.js";
import { BUILTIN_MERCHANT } from "../src/platform/fixtures.js";
import { emit, healthProbe, probeFor, processCpuMs, rssMb, startSandbox } from "./lib.js";

const rowsArg = process.argv.indexOf("--rows");
const ROWS = rowsArg >= 0 ? Number(process.argv[rowsArg + 1]) : 1_000_000;
const formatArg = process.argv.indexOf("--format");
const FORMATS = (formatArg >= 0 ? [process.argv[formatArg + 1]] : ["CSV", "XLS"]) as Array<"CSV" | "XLS">;
const TARGETS = { CSV: { seconds: 5, rssMb: 100 }, XLS: { seconds: 20, rssMb: 100 } } as const;
const START = Date.UTC(2026, 0, 1); // rows every 2.5 s from here: 1M rows span 29 days
const SPACING_MS = 2500;
const KEY = BUILTIN_MERCHANT.merchantKey;

/** 1M rows in one INSERT ... SELECT over a recursive counter: every kind, three currencies, card data on card kinds. */
function seed(path: string, rows: number): number {
  const t0 = performance.now();
  const db = openDb(path);
  db.$client.exec(`
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows - 1})
    INSERT INTO transactions (id, merchant_key, kind, request_id, status, decline_code, card_bin, card_last4, parent_id,
      payment_method, subscription_id, order_currency, order_amount, processed_currency, processed_amount, conversion_rate,
      created_at, updated_at)
    SELECT printf('tx_bench%08d', i), '${KEY}',
      CASE i % 7 WHEN 0 THEN 'card_payment' WHEN 1 THEN 'card_charge' WHEN 2 THEN 'subscription_charge' WHEN 3 THEN 'refund'
        WHEN 4 THEN 'card_payout' WHEN 5 THEN 'apm_payment' ELSE 'apm_payout' END,
      printf('order-%d, "bench"', i),
      CASE WHEN i % 10 = 9 THEN 'FAILED' ELSE 'SUCCEED' END,
      CASE WHEN i % 10 = 9 THEN 2 END,
      CASE WHEN i % 7 < 5 THEN '411111' END, CASE WHEN i % 7 < 5 THEN '1111' END,
      CASE WHEN i % 7 = 3 THEN printf('tx_bench%08d', i - 3) END,
      CASE WHEN i % 7 >= 5 THEN 'UPI_QR' END,
      CASE WHEN i % 7 = 2 THEN 'sub_bench' END,
      CASE i % 3 WHEN 0 THEN 'USD' WHEN 1 THEN 'JPY' ELSE 'KWD' END, 1 + i % 100000,
      'EUR', 1 + i % 90000, '0.92',
      ${START} + i * ${SPACING_MS}, ${START} + i * ${SPACING_MS} + (i % 3) * 1000
    FROM n`);
  db.$client.pragma("wal_checkpoint(TRUNCATE)");
  db.$client.close();
  return (performance.now() - t0) / 1000;
}

interface Download {
  status: number;
  bytes: number;
  newlines: number;
  head: Buffer;
  tail: Buffer;
  seconds: number;
}

/** POSTs one report and reads it to the last byte without keeping it (counts bytes and line ends). */
function download(url: string, body: object): Promise<Download> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/v1/report-generator/s2s`,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-merchant-key": KEY,
          "x-merchant-secret": BUILTIN_MERCHANT.merchantSecret,
        },
      },
      (res) => {
        let bytes = 0;
        let newlines = 0;
        let head = Buffer.alloc(0);
        let tail = Buffer.alloc(0);
        res.on("data", (chunk: Buffer) => {
          if (head.length < 64) head = Buffer.concat([head, chunk]).subarray(0, 64);
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
          tail = Buffer.concat([tail, chunk.subarray(-64)]).subarray(-64);
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, bytes, newlines, head, tail, seconds: (performance.now() - t0) / 1000 }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

async function measure(format: "CSV" | "XLS", dbPath: string): Promise<boolean> {
  const server = await startSandbox({
    dbPath,
    ...(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {}),
    nodeArgs: process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [],
  });
  try {
    // warm-up: a one-row report of the same format loads its modules (exceljs) before the baseline
    const one = new Date(START).toISOString().slice(0, 10);
    await download(server.url, { dateFrom: `${one} 00:00:00`, dateTo: `${one} 00:00:00`, format });
    const idle = await probeFor(server.url, 3000);
    const baseline = rssMb(server.pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(server.pid));
    }, 20);
    const probe = healthProbe(server.url);
    const cpu0 = processCpuMs(server.pid) ?? 0;
    const last = new Date(START + (ROWS - 1) * SPACING_MS).toISOString().slice(0, 10);
    const d = await download(server.url, { dateFrom: one, dateTo: last, format });
    clearInterval(sampler);
    peak = Math.max(peak, rssMb(server.pid));
    const cpuSeconds = ((processCpuMs(server.pid) ?? 0) - cpu0) / 1000;
    const health = await probe.end();

    const complete =
      d.status === 200 &&
      (format === "CSV"
        ? d.newlines === ROWS + 1
        : d.head.subarray(0, 2).toString() === "PK" && d.tail.includes(Buffer.from([0x50, 0x4b, 0x05, 0x06])));
    const growth = Math.round(peak - baseline);
    const target = TARGETS[format];
    const pass = complete && d.seconds <= target.seconds && growth <= target.rssMb;
    console.log(
      `${ROWS} rows as ${format}: ${d.seconds.toFixed(2)} s to the last byte (${Math.round(ROWS / d.seconds)} rows/s), ` +
        `server CPU ${cpuSeconds.toFixed(1)} s, ${(d.bytes / 1e6).toFixed(1)} MB, server RSS ${Math.round(baseline)} → peak ${Math.round(peak)} MB (+${growth} MB), ` +
        `health during it p50 ${health.p50} ms, p99 ${health.p99} ms, max ${health.max} ms of ${health.probes} (idle just before: p99 ${idle.p99} ms; ${(health.p99 / idle.p99).toFixed(1)}×)` +
        `${complete ? "" : " INCOMPLETE"}; target ≤ ${target.seconds} s, ≤ +${target.rssMb} MB: ${pass ? "met" : "MISSED"}`,
    );
    emit(`report-${format.toLowerCase()}`, {
      rows: ROWS,
      seconds: Number(d.seconds.toFixed(2)),
      cpuSeconds: Number(cpuSeconds.toFixed(1)),
      mb: Number((d.bytes / 1e6).toFixed(1)),
      baselineRssMb: Math.round(baseline),
      peakRssMb: Math.round(peak),
      rssGrowthMb: growth,
      healthP99Ms: health.p99,
      healthMaxMs: health.max,
      idleP99Ms: idle.p99,
      p99VsIdle: Number((health.p99 / idle.p99).toFixed(1)),
      target: `<=${target.seconds}s,<=+${target.rssMb}MB`,
      pass,
    });
    return pass;
  } finally {
    await server.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), "paysandbox-bench-report-"));
try {
  const dbPath = join(dir, "sandbox.db");
  console.log(`seeding ${ROWS} transactions…`);
  console.log(`seeded in ${seed(dbPath, ROWS).toFixed(1)} s`);
  let ok = true;
  for (const format of FORMATS) if (!(await measure(format, dbPath))) ok = false;
  if (!ok) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
