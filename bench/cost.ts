/**
 * The per-payment cost account (docs/performance.md "The cost account"): what one card payment costs
 * the server, without a callback and with a webhook to a real local receiver, beside the insert floor
 * (bare hono + one better-sqlite3 INSERT in WAL mode) measured in the same run. Every change on the
 * hot path is judged by it.
 *
 * Two servers of the built tree, each with bench/cost-probe.cjs preloaded (`--require`: the bench's
 * server process only; the server's own code has no switch for it):
 * - the plain one gives CPU µs per payment per thread (main, webhook sender, checkpointer, the rest:
 *   V8's compiler and GC helpers and libuv's pool) from /proc/<pid>/task/<tid>/stat, the probe
 *   naming the worker threads, and the main thread's bytes allocated (v8.GCProfiler);
 * - the other (COST_SQL=1) times every SQLite statement of the main thread, so it is measured apart:
 *   statements per payment, rows written (changes) per table, rows added per table (count(*) before
 *   and after), the COMMIT's µs and its share of the main thread's CPU (of that same server).
 * Each phase: a warm-up, then DURATION seconds at 32 connections (BENCH_CONNECTIONS), then (with webhooks) the wait until
 * the receiver has them all, so the webhook's whole cost falls on the payments that caused it.
 *
 * Run with `npx tsx bench/cost.ts` after `node scripts/build.mjs` (BENCH_DURATION=s, default 10;
 * BENCH_MAIN=/other/dist/main.js measures another build; BENCH_CONNECTIONS=1 one request at a
 * time instead of 32). Prints a table and JSON lines
 * {"bench":"cost-floor",...}, {"bench":"cost-no-callback",...}, {"bench":"cost-webhook",...}.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type BetterSqlite3 from "better-sqlite3";
import {
  type CountingReceiver,
  emit,
  type LoadResult,
  load,
  merchantToken,
  migratedDbFile,
  paymentBody,
  printTable,
  ROOT,
  type Row,
  type Running,
  startBareFloor,
  startCountingReceiver,
  startSandbox,
} from "./lib.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Math.min(3, DURATION);
/** BENCH_CONNECTIONS=1: the same account one request at a time, where no batch shares a commit (docs/performance.md#one-connection). */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PROBE = join(ROOT, "bench/cost-probe.cjs");
const Sqlite = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;

interface Snapshot {
  seq: number;
  threads: Record<string, number>;
  allocatedBytes: number;
  gcs: number;
  /** [SQL text, [calls, ns, rows written]] */
  sql: Array<[string, [number, number, number]]>;
}

/** CPU ms (user + system) of each thread of `pid` so far (/proc/<pid>/task/<tid>/stat; 100 ticks a second). */
function threadCpuMs(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      out.set(Number(tid), (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // the thread ended
    }
  }
  return out;
}

interface Probed {
  server: Running;
  dbPath: string;
  snapshot(): Promise<Snapshot & { cpu: Map<number, number>; rows: Map<string, number> }>;
  stop(): Promise<void>;
}

async function probed(sql: boolean): Promise<Probed> {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-cost-"));
  const dbPath = join(dir, "sandbox.db");
  const out = join(dir, "cost.json");
  const server = await startSandbox({
    dbPath,
    nodeArgs: ["--require", PROBE],
    env: { COST_OUT: out, ...(sql ? { COST_SQL: "1" } : {}) },
    ...(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {}),
  });
  let seq = 0;
  return {
    server,
    dbPath,
    async snapshot() {
      const cpu = threadCpuMs(server.pid);
      process.kill(server.pid, "SIGUSR2");
      seq++;
      for (let i = 0; ; i++) {
        try {
          const s = JSON.parse(readFileSync(out, "utf8")) as Snapshot;
          if (s.seq === seq) return { ...s, cpu, rows: rowCounts(dbPath) };
        } catch {
          // not written yet
        }
        if (i > 500) throw new Error(`no cost snapshot from the server:\n${server.output()}`);
        await delay(10);
      }
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Rows per table of the file (read-only; WAL lets it read beside the server). */
function rowCounts(path: string): Map<string, number> {
  const db = new Sqlite(path, { readonly: true });
  try {
    const tables = db
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
      .pluck()
      .all() as string[];
    return new Map(tables.map((t) => [t, db.prepare(`select count(*) from "${t}"`).pluck().get() as number]));
  } finally {
    db.close();
  }
}

/** Waits until the receiver's count stops growing for 300 ms (the webhooks still queued are delivered). */
async function drained(receiver: CountingReceiver): Promise<number> {
  let last = await receiver.received();
  for (let still = 0, i = 0; still < 3 && i < 600; i++) {
    await delay(100);
    const now = await receiver.received();
    still = now === last ? still + 1 : 0;
    last = now;
  }
  return last;
}

/** The SQL text's table: the one it writes, else the first it reads. */
function tableOf(source: string): string {
  const m =
    /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from|replace\s+into)\s+["`]?(\w+)/i.exec(source) ??
    /\bfrom\s+["`]?(\w+)/i.exec(source);
  return m?.[1] ?? "";
}

const receiver = await startCountingReceiver();
const schemaDb = migratedDbFile();
const rows: Row[] = [];
const details: Row[] = [];
let broken = false;
const perReq = (ms: number, n: number) => (n > 0 ? Math.round((ms * 1000) / n) : 0);

/** One bare floor (bench/lib.ts startBareFloor) under the payments' load: req/s and CPU µs a request. */
async function floorRun(kind: "insert" | "stub" | "rows") {
  const floor = await startBareFloor(kind, schemaDb);
  try {
    const posts = (duration: number, tag: string) =>
      load({
        url: floor.url,
        method: "POST",
        path: "/",
        bodyFor: (i) => paymentBody(`${tag}-${i}`, receiver.url),
        connections: CONNECTIONS,
        duration,
        pid: floor.pid,
      });
    await posts(WARMUP, "warm");
    const cpu0 = threadCpuMs(floor.pid);
    const r = await posts(DURATION, "run");
    const cpu1 = threadCpuMs(floor.pid);
    const main = perReq((cpu1.get(floor.pid) ?? 0) - (cpu0.get(floor.pid) ?? 0), r.total);
    const total = perReq([...cpu1.values()].reduce((a, b) => a + b, 0) - [...cpu0.values()].reduce((a, b) => a + b, 0), r.total);
    if (r.errors > 0 || r.non2xx > 0) broken = true;
    return { r, main, total };
  } finally {
    await floor.stop();
  }
}

try {
  /** A floor's line of the table: no threads of its own, nothing instrumented. */
  const floorRow = (
    what: string,
    rps: number,
    vs: string,
    main: number,
    total: number,
    statements: number,
    written: number,
  ): Row => ({
    what,
    "req/s": rps,
    vsFloor: vs,
    "CPU µs": total,
    main,
    sender: "",
    checkpointer: "",
    other: total - main,
    "alloc KB": "",
    statements,
    "rows written": written,
    "SQL µs": "",
    "COMMIT µs": "",
  });
  const { r: f, main: fMain, total: fTotal } = await floorRun("insert");
  rows.push(floorRow("insert floor", f.rps, "100%", fMain, fTotal, 1, 1));
  emit("cost-floor", { rps: f.rps, cpuUsPerReq: fTotal, mainUs: fMain, loader: f.loader });
  // beside it: a stateless stub (where WireMock stands) and the payment's rows alone (its storage's ceiling)
  for (const [kind, what, stmts, written] of [
    ["stub", "stateless stub (nothing kept)", 0, 0],
    ["rows", "the payment's rows alone", 7, 4],
  ] as const) {
    const { r, main, total } = await floorRun(kind);
    const vs = f.rps > 0 ? r.rps / f.rps : 0;
    rows.push(floorRow(what, r.rps, `${Math.round(vs * 100)}%`, main, total, stmts, written));
    emit(`cost-floor-${kind}`, {
      rps: r.rps,
      vsFloor: Number(vs.toFixed(3)),
      cpuUsPerReq: total,
      mainUs: main,
      loader: r.loader,
    });
  }

  for (const mode of ["no-callback", "webhook"] as const) {
    const callback = mode === "webhook" ? receiver.url : undefined;
    const measure = async (p: Probed) => {
      const token = await merchantToken(p.server.url);
      const pay = (duration: number, tag: string): Promise<LoadResult> =>
        load({
          url: p.server.url,
          method: "POST",
          path: "/api/v1/payments/card",
          headers: { authorization: token },
          bodyFor: (i) => paymentBody(`${tag}-${i}`, callback),
          connections: CONNECTIONS,
          duration,
          pid: p.server.pid,
        });
      await pay(WARMUP, `warm-${mode}`);
      await drained(receiver);
      const before = await p.snapshot();
      const got0 = await receiver.received();
      const r = await pay(DURATION, `run-${mode}`);
      const got1 = callback ? await drained(receiver) : got0;
      await delay(100);
      const after = await p.snapshot();
      if (r.errors > 0 || r.non2xx > 0) broken = true;
      const n = r.total - r.errors - r.non2xx;
      if (callback && got1 - got0 < n) broken = true;
      return { r, n, before, after, webhooks: got1 - got0 };
    };

    // the plain server: CPU per thread, allocations
    const plain = await probed(false);
    let m: Awaited<ReturnType<typeof measure>>;
    try {
      m = await measure(plain);
    } finally {
      await plain.stop();
    }
    const { r, n, before, after } = m;
    const cpuOf = (tid: number | undefined) => (tid === undefined ? 0 : (after.cpu.get(tid) ?? 0) - (before.cpu.get(tid) ?? 0));
    const total = [...after.cpu].reduce((a, [tid, ms]) => a + ms - (before.cpu.get(tid) ?? 0), 0);
    const named = after.threads;
    const main = perReq(cpuOf(named.main), n);
    const sender = perReq(cpuOf(named.sender), n);
    const checkpointer = perReq(cpuOf(named.checkpointer), n);
    const all = perReq(total, n);
    const allocKB = Math.round((after.allocatedBytes - before.allocatedBytes) / n / 102.4) / 10;

    // the instrumented server: statements, rows, the COMMIT
    const counted = await probed(true);
    let c: Awaited<ReturnType<typeof measure>>;
    try {
      c = await measure(counted);
    } finally {
      await counted.stop();
    }
    const was = new Map<string, [number, number, number]>(c.before.sql);
    const stmts = c.after.sql
      .map(([source, [calls, ns, written]]) => {
        const [c0, ns0, w0] = was.get(source) ?? [0, 0, 0];
        return { source, calls: calls - c0, ns: ns - ns0, written: written - w0 };
      })
      .filter((s) => s.calls > 0);
    const per = (x: number) => x / c.n;
    const sum = (xs: typeof stmts, k: "calls" | "ns" | "written") => xs.reduce((a, s) => a + s[k], 0);
    const cPid = counted.server.pid;
    const cMain = (c.after.cpu.get(cPid) ?? 0) - (c.before.cpu.get(cPid) ?? 0);
    const commit = stmts.filter((s) => /^\s*commit\s*$/i.test(s.source));
    const commitUs = per(sum(commit, "ns")) / 1000;
    const sqlUs = per(sum(stmts, "ns")) / 1000;
    const mainUsCounted = (cMain * 1000) / c.n;
    const statements = per(sum(stmts, "calls"));
    const written = per(sum(stmts, "written"));
    const byTable = new Map<string, { calls: number; ns: number; written: number }>();
    for (const s of stmts) {
      const t = tableOf(s.source) || s.source.trim().split(/\s+/)[0]?.toUpperCase() || "?";
      const e = byTable.get(t) ?? { calls: 0, ns: 0, written: 0 };
      e.calls += s.calls;
      e.ns += s.ns;
      e.written += s.written;
      byTable.set(t, e);
    }
    const tables = new Set([...c.after.rows.keys(), ...byTable.keys()]);
    for (const t of [...tables].sort()) {
      const e = byTable.get(t);
      const added = (c.after.rows.get(t) ?? 0) - (c.before.rows.get(t) ?? 0);
      // statements of the start or the clock (no payment's): below 0.005 a payment
      if (per(e?.calls ?? 0) < 0.005 && added === 0) continue;
      details.push({
        payment: mode,
        table: t,
        statements: Number(per(e?.calls ?? 0).toFixed(2)),
        "rows written": Number(per(e?.written ?? 0).toFixed(2)),
        "rows added": Number(per(added).toFixed(2)),
        "SQL µs": Number((per(e?.ns ?? 0) / 1000).toFixed(1)),
      });
    }
    const eventsRecordingUs = ((byTable.get("events")?.ns ?? 0) + (byTable.get("recorded_calls")?.ns ?? 0)) / c.n / 1000;
    const vsFloor = f.rps > 0 ? r.rps / f.rps : 0;
    rows.push({
      what: mode === "webhook" ? "card payment + webhook" : "card payment, no callback",
      "req/s": r.rps,
      vsFloor: `${Math.round(vsFloor * 100)}%`,
      "CPU µs": all,
      main,
      sender,
      checkpointer,
      other: all - main - sender - checkpointer,
      "alloc KB": allocKB,
      statements: Number(statements.toFixed(1)),
      "rows written": Number(written.toFixed(1)),
      "SQL µs": Number(sqlUs.toFixed(1)),
      "COMMIT µs": `${commitUs.toFixed(1)} (${Math.round((commitUs / main) * 100)}%)`,
    });
    emit(mode === "webhook" ? "cost-webhook" : "cost-no-callback", {
      rps: r.rps,
      cpuUsPerReq: all,
      floorRps: f.rps,
      vsFloor: Number(vsFloor.toFixed(3)),
      floorCpuUsPerReq: fTotal,
      mainUs: main,
      senderUs: sender,
      checkpointerUs: checkpointer,
      otherUs: all - main - sender - checkpointer,
      allocKB,
      statements: Number(statements.toFixed(2)),
      rowsWritten: Number(written.toFixed(2)),
      sqlUs: Number(sqlUs.toFixed(1)),
      commitUs: Number(commitUs.toFixed(1)),
      commitShareOfMain: Number((commitUs / main).toFixed(3)),
      eventsRecordingSqlUs: Number(eventsRecordingUs.toFixed(1)),
      countedMainUs: Math.round(mainUsCounted),
      payments: n,
      loader: r.loader,
    });
    console.log(
      `${mode}: ${n} payments at ${r.rps} req/s (${Math.round(vsFloor * 100)}% of the floor's ${f.rps}); ` +
        `SQL ${sqlUs.toFixed(1)} µs a payment (of the instrumented server's ${Math.round(mainUsCounted)} µs main-thread CPU), ` +
        `the event log and the recording's statements ${eventsRecordingUs.toFixed(1)} µs; ` +
        `the plain server's main thread: ${((m.after.gcs - m.before.gcs) / (n / 1000)).toFixed(1)} GCs per 1,000 payments; the statements by time:`,
    );
    // COST_TOP=n: the n costliest statements (default 12)
    for (const s of stmts.sort((a, b) => b.ns - a.ns).slice(0, Number(process.env.COST_TOP ?? 12))) {
      console.log(
        `  ${per(s.calls).toFixed(2)}× ${(per(s.ns) / 1000).toFixed(1)} µs  ${s.source.replace(/\s+/g, " ").slice(0, 110)}`,
      );
    }
  }
} finally {
  receiver.stop();
}

console.log(
  `\n=== per payment (CPU in µs of each server thread, from /proc; alloc = main thread's V8 allocations; ` +
    `statements, rows, SQL and COMMIT µs from a second, instrumented server; the COMMIT's share is of the main column) ===`,
);
printTable(rows);
console.log("\n=== per payment, by table (instrumented server) ===");
printTable(details);
if (broken) {
  console.error("some requests failed or webhooks were missing: the numbers above are not valid");
  process.exitCode = 1;
}
