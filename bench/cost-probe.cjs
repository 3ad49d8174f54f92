/**
 * The cost account's probe (bench/cost.ts, docs/performance.md "The cost account"): preloaded into
 * the BENCH's server process only (`node --require bench/cost-probe.cjs dist/main.js start`), never
 * part of the server's code, so the normal path pays nothing for it.
 *
 * - Threads: wraps `worker_threads.Worker` so that each worker's OS thread id is known (the tids
 *   that appear in /proc/self/task during its constructor, which starts the thread synchronously);
 *   a worker is named by its workerData: `sender` (the webhook sender: undici), `checkpointer`
 *   (the SQLite driver and its period), else `worker`. Node 20 names every thread "node".
 * - Allocations: v8.GCProfiler on the main thread; the bytes allocated between two snapshots are the
 *   heap's growth between collections (used before each GC minus used after the previous one) plus
 *   the growth since the last one.
 * - SQL (only with COST_SQL=1, since timing each statement costs ~0.2 µs): better-sqlite3's Statement
 *   prototype is wrapped (run/get/all/iterate, which also carry transactions and pragmas) on the
 *   main thread: per SQL text, calls, ns inside and rows written (run()'s `changes`, or the rows an
 *   INSERT/UPDATE/DELETE ... RETURNING gave back); `exec()` is counted as one statement per call.
 *
 * On SIGUSR2 it writes a snapshot (cumulative since the start) as JSON to $COST_OUT, `seq` increased.
 */
"use strict";
const { isMainThread } = require("node:worker_threads");

if (isMainThread && process.env.COST_OUT) {
  const fs = require("node:fs");
  const v8 = require("node:v8");
  const wt = require("node:worker_threads");
  const { syncBuiltinESMExports, createRequire } = require("node:module");

  const threads = { main: process.pid };
  const tids = () => new Set(fs.readdirSync("/proc/self/task").map(Number));
  const Original = wt.Worker;
  let others = 0;
  class Worker extends Original {
    constructor(source, opts) {
      const before = tids();
      super(source, opts);
      const data = opts?.workerData || {};
      const kind = data.undici ? "sender" : data.driver && data.ms !== undefined ? "checkpointer" : `worker${++others}`;
      const fresh = [...tids()].filter((t) => !before.has(t));
      if (fresh.length === 1) threads[kind] = fresh[0];
    }
  }
  wt.Worker = Worker;
  syncBuiltinESMExports();

  // allocations of the main isolate
  let allocated = 0;
  let lastUsed = v8.getHeapStatistics().used_heap_size;
  let gcs = 0;
  let profiler = new v8.GCProfiler();
  profiler.start();
  const takeAllocations = () => {
    const data = profiler.stop();
    for (const s of data?.statistics ?? []) {
      allocated += Math.max(0, s.beforeGC.heapStatistics.usedHeapSize - lastUsed);
      lastUsed = s.afterGC.heapStatistics.usedHeapSize;
      gcs++;
    }
    const now = v8.getHeapStatistics().used_heap_size;
    allocated += Math.max(0, now - lastUsed);
    lastUsed = now;
    profiler = new v8.GCProfiler();
    profiler.start();
  };

  // statements, per SQL text: [calls, ns, rows written]
  const sql = new Map();
  if (process.env.COST_SQL === "1") {
    // resolved from the server's own script, so that it is the very module (and addon) the server loads
    const Database = createRequire(process.argv[1] ?? `${process.cwd()}/package.json`)("better-sqlite3");
    const probeDb = new Database(":memory:");
    const proto = Object.getPrototypeOf(probeDb.prepare("select 1"));
    probeDb.close();
    const WRITE = /^\s*(insert|update|delete|replace)\b/i;
    const entry = (source) => {
      let e = sql.get(source);
      if (!e) {
        e = [0, 0, 0];
        sql.set(source, e);
      }
      return e;
    };
    const wrap = (name, written) => {
      const inner = proto[name];
      proto[name] = function (...args) {
        const t0 = process.hrtime.bigint();
        const out = inner.apply(this, args);
        const e = entry(this.source);
        e[0]++;
        e[1] += Number(process.hrtime.bigint() - t0);
        e[2] += written(out, this.source);
        return out;
      };
    };
    const returned = (out, source) => (WRITE.test(source) ? (Array.isArray(out) ? out.length : out === undefined ? 0 : 1) : 0);
    wrap("run", (out) => out?.changes ?? 0);
    wrap("get", returned);
    wrap("all", returned);
    wrap("iterate", () => 0);
    const exec = Database.prototype.exec;
    Database.prototype.exec = function (source) {
      const t0 = process.hrtime.bigint();
      const out = exec.call(this, source);
      const e = entry(`exec: ${source.slice(0, 200)}`);
      e[0]++;
      e[1] += Number(process.hrtime.bigint() - t0);
      return out;
    };
  }

  // COST_HEAP=1: where the main thread allocates, by V8's sampling heap profiler with the objects
  // collected since kept in (an allocation profile, not a retention one); each snapshot writes the
  // samples since the last one to $COST_OUT.heapprofile
  let session;
  if (process.env.COST_HEAP === "1") {
    const { Session } = require("node:inspector");
    session = new Session();
    session.connect();
    session.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  const heapSnapshot = () => {
    if (!session) return;
    session.post("HeapProfiler.stopSampling", (err, r) => {
      if (!err) fs.writeFileSync(`${process.env.COST_OUT}.heapprofile`, JSON.stringify(r.profile));
      session.post("HeapProfiler.startSampling", {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    });
  };

  let seq = 0;
  process.on("SIGUSR2", () => {
    heapSnapshot();
    takeAllocations();
    const snapshot = { seq: ++seq, threads, allocatedBytes: allocated, gcs, sql: [...sql] };
    fs.writeFileSync(`${process.env.COST_OUT}.tmp`, JSON.stringify(snapshot));
    fs.renameSync(`${process.env.COST_OUT}.tmp`, process.env.COST_OUT);
  });
}
