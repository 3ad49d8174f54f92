/**
 * `paysandbox run` end to end: the built command spawned as a user runs it, process
 * start included. A 100-step file (payments with webhooks to the run's receiver, status reads,
 * clock jumps, webhook checks), and 20 files in one call (one process, a fresh sandbox per file).
 *
 * Targets: the 100-step file in ≤ 2 s (median of 5); 20 files in one call take less than 20
 * separate calls would (one process start, not 20).
 * Run alone with `npx tsx bench/runner.ts` (after `npm run build`).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { CARD_BILLING, exampleDevice } from "../src/platform/examples.js";
import { emit, median, printTable, ROOT } from "./lib.js";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-bench-run-"));
const PAYMENT = {
  requestId: "${uuid}",
  mid: "sandbox-mid-001",
  amount: "20.50",
  currency: "USD",
  card: {
    number: "4111111111111111",
    cardHolderName: "Ada",
    expMonth: "12",
    expYear: "2030",
    cvv: "737",
    requestThreeDSecure: false,
  },
  billingDetails: CARD_BILLING,
  order: { orderId: "o-1", title: "bench" },
  lang: "en",
  device: exampleDevice("bench"),
  callbackUrl: "${callbackUrl}",
};

/** 100 steps in groups of 5: pay, read its status, its info, advance a minute, find its webhook. */
function hundredSteps(name: string): Record<string, unknown> {
  const steps: unknown[] = [];
  for (let i = 0; steps.length < 100; i++) {
    steps.push(
      {
        request: "POST /api/v1/payments/card",
        body: PAYMENT,
        expect: { status: 200, body: { transactionStatus: "SUCCEED" } },
        save: `p${i}`,
      },
      { request: `GET /api/v1/payments/card/status/\${p${i}.transactionId}`, expect: { body: { transactionStatus: "SUCCEED" } } },
      { request: `GET /api/v1/payments/card/info/\${p${i}.transactionId}`, expect: { body: { orderAmount: 20.5 } } },
      { advance: "PT1M" },
      { webhook: { transactionId: `\${p${i}.transactionId}`, body: { transactionStatus: "SUCCEED" }, delivery: "delivered" } },
    );
  }
  return { name, startTime: "2026-03-01T09:00:00Z", steps };
}

function file(name: string, doc: Record<string, unknown>): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

/**
 * CPU ms (user + system) of this process's finished children, from /proc/self/stat (cutime, cstime
 * in clock ticks of 10 ms): unlike wall time it barely moves when other work shares the machine.
 */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** Spawns `node dist/main.js run ...files`; wall ms, CPU ms and the closing line. */
function run(files: string[]): { ms: number; cpuMs: number; last: string; code: number | null } {
  const cpu0 = childrenCpuMs();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["dist/main.js", "run", ...files], { cwd: ROOT, encoding: "utf8" });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`paysandbox run exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return { ms, cpuMs: childrenCpuMs() - cpu0, last: r.stdout.trimEnd().split("\n").at(-1) ?? "", code: r.status };
}

const machine = { cores: cpus().length, node: process.version, load1: Number(loadavg()[0]?.toFixed(2)) };
console.log(`machine: ${machine.cores} cores, node ${machine.node}, load average ${machine.load1} at start`);

const big = file("hundred", hundredSteps("hundred"));
const runs = Array.from({ length: 5 }, () => run([big]));
const oneMs = median(runs.map((r) => r.ms));
const oneCpu = median(runs.map((r) => r.cpuMs));
console.log(
  `100-step file: median ${oneMs.toFixed(0)} ms end to end (${runs.map((r) => r.ms.toFixed(0)).join(", ")}), ${oneCpu} ms CPU; ${runs[0]?.last}`,
);
emit("run-100-steps", {
  medianMs: Math.round(oneMs),
  cpuMs: oneCpu,
  target: "≤ 2000 ms",
  pass: oneMs <= 2000,
  runs: runs.map((r) => Math.round(r.ms)).join("/"),
});

// 20 files of 20 steps (4 groups), in one call and as 20 calls
const small = Array.from({ length: 20 }, (_, i) => {
  const doc = hundredSteps(`small-${i}`);
  return file(`small-${i}`, { ...doc, steps: (doc.steps as unknown[]).slice(0, 20) });
});
const together = run(small);
let separateMs = 0;
let separateCpuMs = 0;
for (const f of small) {
  const r = run([f]);
  separateMs += r.ms;
  separateCpuMs += r.cpuMs;
}
console.log(
  `20 files × 20 steps: ${together.ms.toFixed(0)} ms (${together.cpuMs} ms CPU) in one call (${together.last}); ` +
    `${separateMs.toFixed(0)} ms (${separateCpuMs} ms CPU) as 20 calls`,
);
emit("run-20-files", {
  medianMs: Math.round(together.ms),
  cpuMs: together.cpuMs,
  separateMs: Math.round(separateMs),
  separateCpuMs,
  target: "< 20 separate calls",
  pass: together.ms < separateMs,
});
printTable([
  { bench: "run-100-steps", ms: Math.round(oneMs), cpuMs: oneCpu, target: "≤ 2000" },
  {
    bench: "run-20-files (one call)",
    ms: Math.round(together.ms),
    cpuMs: together.cpuMs,
    target: `< ${Math.round(separateMs)} (20 calls)`,
  },
]);
