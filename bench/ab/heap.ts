/**
 * Where the main thread allocates for a card payment with its webhook (docs/performance.md "The cost
 * account"): the built server (or BENCH_MAIN's) with bench/cost-probe.cjs and COST_HEAP=1, a warm-up,
 * then SECONDS of payments with a callback to a real receiver and the wait for every webhook; prints
 * the sampled bytes per payment by function (self) and by source file of the bundle.
 *
 *   node scripts/build.mjs && npx tsx bench/ab/heap.ts   [SECONDS=4 NOCB=1 BENCH_MAIN=...]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { load, merchantToken, paymentBody, ROOT, startCountingReceiver, startSandbox } from "../lib.js";

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

const dir = mkdtempSync(join(tmpdir(), "paysandbox-heap-"));
const out = join(dir, "cost.json");
const receiver = await startCountingReceiver();
const sandbox = await startSandbox({
  nodeArgs: ["--require", join(ROOT, "bench/cost-probe.cjs")],
  env: { COST_OUT: out, COST_HEAP: "1" },
  ...(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {}),
});
const cb = process.env.NOCB ? undefined : receiver.url;
let seq = 0;
const snapshot = async (): Promise<HeapNode> => {
  process.kill(sandbox.pid, "SIGUSR2");
  seq++;
  for (let i = 0; i < 500; i++) {
    try {
      const s = JSON.parse(readFileSync(out, "utf8")) as { seq: number };
      if (s.seq === seq) {
        await delay(200);
        return (JSON.parse(readFileSync(`${out}.heapprofile`, "utf8")) as { head: HeapNode }).head;
      }
    } catch {}
    await delay(10);
  }
  throw new Error("no snapshot");
};
try {
  const token = await merchantToken(sandbox.url);
  const run = (tag: string, duration: number) =>
    load({
      url: sandbox.url,
      method: "POST",
      path: "/api/v1/payments/card",
      headers: { authorization: token },
      bodyFor: (i) => paymentBody(`${tag}-${i}`, cb),
      connections: 32,
      duration,
      pid: sandbox.pid,
    });
  await run("w", 2);
  while (cb && (await receiver.received()) < 1) await delay(50);
  await delay(500);
  await snapshot();
  const before = await receiver.received();
  const r = await run("m", Number(process.env.SECONDS ?? 4));
  const n = r.total;
  if (cb) for (let i = 0; i < 600 && (await receiver.received()) < before + n; i++) await delay(50);
  const head = await snapshot();
  const byFn = new Map<string, number>();
  const byFile = new Map<string, number>();
  const bundle = readFileSync(join(ROOT, "dist/server.cjs"), "utf8").split("\n");
  // the bundle's source markers (`// src/x.ts`) before a line
  const markers: Array<[number, string]> = [];
  bundle.forEach((l, i) => {
    const m = /^\/\/ (src\/\S+|node_modules\/\S+)$/.exec(l);
    if (m) markers.push([i, (m[1] as string).replace(/^node_modules\/((@[^/]+\/)?[^/]+).*/, "$1")]);
  });
  const fileOf = (line: number) => {
    let f = "?";
    for (const [i, name] of markers) {
      if (i > line) break;
      f = name;
    }
    return f;
  };
  const walk = (node: HeapNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.endsWith("server.cjs") ? fileOf(lineNumber) : url.replace(/^.*\//, "") || "(native)";
    const fn = `${functionName || "(anonymous)"} ${file}:${lineNumber}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + node.selfSize);
    byFile.set(file, (byFile.get(file) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c);
  };
  walk(head);
  const total = [...byFile.values()].reduce((a, b) => a + b, 0);
  console.log(`${n} payments at ${r.rps} req/s; sampled ${(total / n / 1024).toFixed(1)} KB a payment`);
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, b]) => `  ${(b / n / 1024).toFixed(2).padStart(6)} KB  ${name}`)
      .join("\n");
  console.log(`== by file\n${top(byFile, 25)}\n== by function\n${top(byFn, Number(process.env.TOP ?? 40))}`);
} finally {
  await sandbox.stop();
  receiver.stop();
  rmSync(dir, { recursive: true, force: true });
}
