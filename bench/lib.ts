/**
 * Shared helpers of the benchmark scripts (docs/performance.md). Every `bench/*.ts` but this file and
 * run.ts is a standalone script that `npm run bench` (bench/run.ts) runs as a child process; each
 * prints human lines and one JSON line per result through `emit()`, which run.ts collects.
 *
 * The servers under load always run in CHILD processes, and so does the load generator when it can:
 * wrk (a C program, far lighter than a Node client; BENCH_LOADER=wrk|autocannon|auto, default auto =
 * wrk when it is on PATH and every request template can be written as a wrk Lua script), else
 * autocannon in this process. On a 2-core machine a Node load generator takes a whole core from the
 * server under test, so wrk's figures are the ones to compare with other wrk measurements.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  accessSync,
  copyFileSync,
  existsSync,
  constants as fsConstants,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { Agent as HttpAgent, get as httpGet, request as httpRequest } from "node:http";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { closeDb, openDb } from "../src/db/client.js";

/** The project root (benchmarks run the built server in dist/, as `npm run bench` builds it first). */
export const ROOT = new URL("../", import.meta.url).pathname;
const MAIN = join(ROOT, "dist/main.js");

export interface Running {
  url: string;
  port: number;
  /** The server's process id: pass it to load() to get the server's CPU time per request. */
  pid: number;
  /** SIGTERM, wait for the exit, remove the temp db folder. */
  stop(): Promise<void>;
  /** What it printed so far (the first 20,000 characters), and how it ended if it did: to say why it died. */
  output(): string;
}

/** A port that was free a moment ago (the OS picks it), for `--port`. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "paysandbox-bench-"));
}

/** One GET with a fresh connection (node:http: lighter than fetch, so polling steals little CPU). */
function getStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpGet(url, { agent: false, timeout: 1000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
  });
}

/** Polls `url` every 5 ms until it answers 200; resolves with the ms since `t0` (performance.now()). */
async function firstOk(url: string, t0: number, proc: ChildProcess, output: () => string, timeoutMs = 15_000): Promise<number> {
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`server exited (${proc.exitCode}):\n${output()}`);
    if ((await getStatus(url)) === 200) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`no 200 from ${url} within ${timeoutMs} ms:\n${output()}`);
    await delay(5);
  }
}

function spawnNode(args: string[], env: Record<string, string>, cwd = ROOT) {
  const proc = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const keep = (d: Buffer) => {
    if (out.length < 20_000) out += d.toString();
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const kill = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill("SIGTERM");
      const forced = setTimeout(() => proc.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(forced);
    }
  };
  return { proc, output: () => out, kill };
}

/** Once `ready` resolves, a Running that stops the process and removes its folder; on failure, the same cleanup. */
async function whenReady(
  ready: Promise<unknown>,
  p: { url: string; port: number; proc: ChildProcess; kill: () => Promise<void>; dir: string; output: () => string },
): Promise<Running> {
  const stop = async () => {
    await p.kill();
    rmSync(p.dir, { recursive: true, force: true });
  };
  try {
    await ready;
  } catch (err) {
    await stop();
    throw err;
  }
  const output = () => {
    const { exitCode, signalCode } = p.proc;
    const ended = exitCode !== null || signalCode !== null ? `\n[exited: code ${exitCode}, signal ${signalCode}]` : "";
    return `${p.output()}${ended}`;
  };
  return { url: p.url, port: p.port, pid: p.proc.pid ?? 0, stop, output };
}

/**
 * Starts the built server the README way (`node dist/main.js start`) on a free port with a fresh
 * SQLite file (or `dbPath`), LOG_LEVEL=warn (no per-request log line), and waits for /_sandbox/health.
 */
export async function startSandbox(
  opts: {
    env?: Record<string, string>;
    args?: string[];
    /** An existing (seeded) SQLite file instead of a fresh one. */
    dbPath?: string;
    /** Node flags before the script, e.g. `--cpu-prof` (NODE_OPTIONS refuses it). */
    nodeArgs?: string[];
    /** Another build's main.js (A/B runs: bench/ab/compare.ts). */
    main?: string;
  } = {},
): Promise<Running> {
  const main = opts.main ?? MAIN;
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` (npm run bench does)`);
  const dir = tempDir();
  const port = await freePort();
  const { proc, output, kill } = spawnNode(
    [
      ...(opts.nodeArgs ?? []),
      main,
      "start",
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--db",
      opts.dbPath ?? join(dir, "sandbox.db"),
      ...(opts.args ?? []),
    ],
    { LOG_LEVEL: "warn", ...opts.env },
  );
  const url = `http://127.0.0.1:${port}`;
  return whenReady(firstOk(`${url}/_sandbox/health`, performance.now(), proc, output), { url, port, proc, kill, dir, output });
}

// The floors: the least any Node HTTP server on this machine can do, to compare the sandbox with.
const FLOOR_SOURCE = `
import { serve } from "@hono/node-server";
import { Hono } from "hono";
const kind = process.env.FLOOR_KIND;
const app = new Hono();
if (kind === "hello") {
  app.get("/health", (c) => c.json({ status: "ok" }));
} else if (kind === "stub") {
  // a stateless stub: the body read and a canned answer, nothing kept
  let n = 0;
  app.post("/", async (c) => {
    await c.req.text();
    return c.json({ transactionId: "tx_" + ++n, transactionStatus: "SUCCEED" }, 201);
  });
} else {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(process.env.FLOOR_DB);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  if (kind === "insert") {
    db.exec("create table if not exists t (id integer primary key, body text not null)");
    const insert = db.prepare("insert into t (body) values (?)");
    app.post("/", async (c) => {
      const id = insert.run(await c.req.text()).lastInsertRowid;
      return c.json({ id: Number(id) }, 201);
    });
  } else {
    // rows: what the sandbox keeps of a card payment without a callback, and nothing else, on
    // the sandbox's own migrated schema (FLOOR_DB is a copy of it): the idempotency look-up and
    // row, the transaction row, its event and its recorded call, each request in a savepoint of
    // one transaction per turn of the event loop, answered once it is committed (as src/db/commit.ts)
    const s = (sql) => db.prepare(sql);
    const find = s("SELECT body_hash, response FROM idempotency_keys WHERE merchant_key = ? AND operation = ? AND request_id = ?").raw();
    const idem = s("INSERT INTO idempotency_keys (merchant_key, operation, request_id, body_hash, http_status, response, created_at) VALUES (?, ?, ?, ?, 200, ?, ?)");
    const tx = s("INSERT INTO transactions (id, merchant_key, kind, request_id, status, card_bin, card_last4, card_length, card_exp_month, card_exp_year, card_holder, card_brand, card_profile, order_currency, order_amount, processed_currency, processed_amount, conversion_rate, three_ds, lang, billing_details, order_data, device, created_at, updated_at) VALUES (?, 'mk', 'card_payment', ?, 'SUCCEED', '411111', '1111', 16, ?, ?, ?, 'VISA', 'success', ?, 2050, ?, 2050, '1', 0, ?, ?, ?, ?, ?, ?)");
    const ev = s("INSERT INTO events (type, transaction_id, merchant, data) VALUES ('transaction', ?, 'mid', ?)");
    const rec = s("INSERT INTO recorded_calls (at, kind, method, path, merchant_key, body, status, response, webhooks_up_to) VALUES (?, 'request', 'POST', '/api/v1/payments/card', 'mk', ?, 200, ?, 0)");
    const [begin, commit, savepoint, release] = ["BEGIN IMMEDIATE", "COMMIT", 'SAVEPOINT "tx"', 'RELEASE "tx"'].map(s);
    let done;
    let n = 0;
    app.post("/", async (c) => {
      const text = await c.req.text();
      const b = JSON.parse(text);
      if (!db.inTransaction) {
        begin.run();
        done = new Promise((resolve) => setImmediate(() => (commit.run(), resolve())));
      }
      const now = Date.now();
      const id = "tx_" + now + "_" + ++n;
      const answer = JSON.stringify({ transactionId: id, transactionStatus: "SUCCEED" });
      savepoint.run();
      if (find.get("mk", "card_payment", b.requestId)) throw new Error("duplicate");
      tx.run(id, b.requestId, b.card.expMonth, b.card.expYear, b.card.cardHolderName, b.currency, b.currency, b.lang, JSON.stringify(b.billingDetails), JSON.stringify(b.order), JSON.stringify(b.device), now, now);
      idem.run("mk", "card_payment", b.requestId, "0".repeat(64), answer, now);
      ev.run(id, answer);
      rec.run(now, text, answer);
      release.run();
      await done;
      return c.body(answer, 200, { "content-type": "application/json" });
    });
  }
}
serve({ fetch: app.fetch, port: Number(process.env.FLOOR_PORT), hostname: "127.0.0.1" });
`;

/** An empty database file with every migration of this tree (the rows floor's schema); removed with the process's temp dirs. */
export function migratedDbFile(): string {
  const path = join(tempDir(), "schema.db");
  closeDb(openDb(path));
  return path;
}

/**
 * A bare @hono/node-server app in a child process: `hello` answers GET /health `{"status":"ok"}`,
 * `insert` does one better-sqlite3 INSERT (WAL, synchronous=NORMAL, as the sandbox) per POST /,
 * `stub` answers a POST with a canned JSON and keeps nothing (where a stateless stub stands), `rows`
 * writes what the sandbox keeps of a card payment without a callback (the idempotency look-up and
 * row, the transaction, its event, its recorded call) in the sandbox's own schema and group commit,
 * and nothing else: the ceiling of a payment that keeps those rows (docs/performance.md "The cost account").
 * `schemaDb`: for `rows`, a migrated empty database file to copy (migratedDbFile()).
 */
export async function startBareFloor(kind: "hello" | "insert" | "stub" | "rows", schemaDb?: string): Promise<Running> {
  const dir = tempDir();
  const port = await freePort();
  const dbFile = join(dir, "floor.db");
  if (kind === "rows") {
    if (!schemaDb) throw new Error("the rows floor needs a migrated database (migratedDbFile())");
    copyFileSync(schemaDb, dbFile);
  }
  const { proc, output, kill } = spawnNode(["--input-type=module", "-e", FLOOR_SOURCE], {
    FLOOR_KIND: kind,
    FLOOR_PORT: String(port),
    FLOOR_DB: dbFile,
  });
  const url = `http://127.0.0.1:${port}`;
  const probe =
    kind === "hello"
      ? firstOk(`${url}/health`, performance.now(), proc, output)
      : (async () => {
          for (let i = 0; i < 5000; i++) {
            if (proc.exitCode !== null) throw new Error(`floor exited:\n${output()}`);
            try {
              const res = await fetch(url, { method: "POST", body: paymentBody(`floor-probe-${i}`) });
              await res.arrayBuffer();
              if (res.ok) return;
            } catch {
              // not listening yet
            }
            await delay(2);
          }
          throw new Error(`${kind} floor did not start:\n${output()}`);
        })();
  return whenReady(probe, { url, port, proc, kill, dir, output });
}

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A body per request (see MixedRequest.bodyFor), e.g. a fresh requestId each time. */
  bodyFor?: (i: number, item: string) => string;
  /** Values handed to bodyFor in turn (see MixedRequest.cycle). */
  cycle?: readonly string[];
  /** Pins the load generator (see MixedLoadOptions.loader). */
  loader?: "wrk" | "autocannon";
  connections?: number;
  /** Seconds. */
  duration?: number;
  /** The server's pid (Running.pid): adds cpuUsPerReq to the result. */
  pid?: number;
}

/** Which client produced a LoadResult: wrk, autocannon, or sequentialLatency()'s node:http loop. */
export type Loader = "wrk" | "autocannon" | "node";

export interface LoadResult {
  /** Mean requests per second over the run. */
  rps: number;
  /** Latency percentiles, ms (wrk: 0.01 ms resolution; autocannon: whole ms). */
  p50: number;
  p99: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Answers that were not 2xx (wrk: status ≥ 400). */
  non2xx: number;
  total: number;
  /**
   * Server CPU time (user + system) per request in µs, when `pid` was given (Linux /proc). Unlike
   * req/s it barely moves when other work shares the machine, so it is the figure to compare.
   */
  cpuUsPerReq?: number;
  loader: Loader;
}

/** VmRSS of a process in MB (Linux /proc); NaN once it is gone. */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (user + system) of a process so far in ms, from /proc (Linux); undefined elsewhere. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (100 Hz on Linux)
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (req: AutocannonRequest) => AutocannonRequest;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  requests: AutocannonRequest[];
}) => Promise<AutocannonResult>;

// autocannon ships no type declarations: load it through require and type the part we use.
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

/** One request template of loadMixed(). */
export interface MixedRequest {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  /**
   * A path per request, e.g. an id to read. `i` is unique per request of this template within a run
   * (0, 1, 2 ... with autocannon; larger numbers with wrk); `item` is `cycle[k % cycle.length]` for
   * the template's k-th request ("" without a cycle). To run under wrk it must be a plain template:
   * text with `i` and `item` put in as they are (no arithmetic on i, no lookups).
   */
  pathFor?: (i: number, item: string) => string;
  headers?: Record<string, string>;
  body?: string;
  /** A body per request (i and item as for pathFor), e.g. a fresh requestId each time. */
  bodyFor?: (i: number, item: string) => string;
  /** Values handed in turn to pathFor/bodyFor as `item`, e.g. ids of records made before the run. */
  cycle?: readonly string[];
}

export interface MixedLoadOptions {
  url: string;
  /** Each connection (wrk: each thread) sends these in turn, over and over: equal shares of each. */
  requests: MixedRequest[];
  connections?: number;
  /** Seconds. */
  duration?: number;
  /** The server's pid (Running.pid): adds cpuUsPerReq to the result. */
  pid?: number;
  /**
   * Pins the load generator for this run instead of BENCH_LOADER (wrk fails if it cannot be used),
   * e.g. so that two loads compared with each other use the same client: see loaderFor().
   */
  loader?: "wrk" | "autocannon";
}

function headersOf(r: MixedRequest): Record<string, string> {
  return { ...(r.body !== undefined || r.bodyFor ? { "content-type": "application/json" } : {}), ...r.headers };
}

function toAutocannon(r: MixedRequest): AutocannonRequest {
  const { bodyFor, pathFor, cycle } = r;
  const itemOf = (n: number) => (cycle && cycle.length > 0 ? (cycle[n % cycle.length] as string) : "");
  let i = 0;
  return {
    method: r.method ?? "GET",
    path: r.path,
    headers: headersOf(r),
    ...(r.body !== undefined ? { body: r.body } : {}),
    ...(bodyFor || pathFor
      ? {
          setupRequest: (req: AutocannonRequest) => {
            const n = i++;
            const item = itemOf(n);
            return { ...req, ...(pathFor ? { path: pathFor(n, item) } : {}), ...(bodyFor ? { body: bodyFor(n, item) } : {}) };
          },
        }
      : {}),
  };
}

async function runAutocannon(opts: MixedLoadOptions): Promise<Omit<LoadResult, "cpuUsPerReq">> {
  const r = await autocannon({
    url: opts.url,
    connections: opts.connections ?? 32,
    duration: opts.duration ?? 10,
    requests: opts.requests.map(toAutocannon),
  });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
    total: r.requests.total,
    loader: "autocannon",
  };
}

// wrk: the request templates become a Lua script (generated per run into a temp file).

/** A text with placeholders: strings, I (the request's number) and ITEM (its cycle value). */
type Piece = string | typeof I | typeof ITEM;
const I = 1;
const ITEM = 2;
const SENTINELS = [
  { i: 7391846205, item: "Zq4928173Zq" },
  { i: 8502957316, item: "Zq6039284Zq" },
] as const;

/**
 * The pieces of `f` if it is a plain template in (i, item): called with two different sentinel
 * pairs, its outputs differ only where the sentinels went in. Undefined otherwise (e.g. `xs[i % n]`).
 */
export function templateOf(f: (i: number, item: string) => string): Piece[] | undefined {
  const [a, b] = SENTINELS;
  const first = f(a.i, a.item);
  const split = first.split(new RegExp(`(${a.i}|${a.item})`));
  const pieces: Piece[] = split.map((p, n) => (n % 2 === 0 ? p : p === a.item ? ITEM : I));
  const rebuilt = pieces.map((p) => (p === I ? String(b.i) : p === ITEM ? b.item : p)).join("");
  return rebuilt === f(b.i, b.item) ? pieces.filter((p) => p !== "") : undefined;
}

/** A Lua string literal for any text: all but printable ASCII (quotes, backslashes too) as \ddd UTF-8 byte escapes. */
function luaString(s: string): string {
  const bytes = (c: string) => [...Buffer.from(c)].map((b) => `\\${String(b).padStart(3, "0")}`).join("");
  return `"${s.replace(/[^ !#-[\]-~]/gu, bytes)}"`;
}

function luaText(pieces: Piece[] | string): string {
  if (typeof pieces === "string") return luaString(pieces);
  return `{${pieces.map((p) => (typeof p === "string" ? luaString(p) : String(p))).join(", ")}}`;
}

/** The Lua table of one template, or undefined when its pathFor/bodyFor is no plain template. */
function toLua(r: MixedRequest): string | undefined {
  const path = r.pathFor ? templateOf(r.pathFor) : r.path;
  const body = r.bodyFor ? templateOf(r.bodyFor) : r.body;
  if (path === undefined || (r.bodyFor && body === undefined)) return undefined;
  const headers = Object.entries(headersOf(r))
    .map(([k, v]) => `[${luaString(k)}] = ${luaString(v)}`)
    .join(", ");
  const fields = [
    `method = ${luaString(r.method ?? "GET")}`,
    `path = ${luaText(path)}`,
    `headers = {${headers}}`,
    ...(body !== undefined ? [`body = ${luaText(body)}`] : []),
    ...(r.cycle && r.cycle.length > 0 ? [`cycle = {${r.cycle.map(luaString).join(", ")}}`] : []),
  ];
  return `  { ${fields.join(", ")} },`;
}

// Each thread cycles through the templates; a template's k-th request of thread tid gets
// i = base + tid * 1e9 + k (unique across threads, templates' counters and this process's runs).
const LUA_BODY = `
local started = 0
function setup(thread)
  started = started + 1
  thread:set("tid", started)
end
local counts = {}
for n = 1, #T do counts[n] = 0 end
local turn = 0
local function build(t, i, item)
  if type(t) ~= "table" then return t end
  local out = {}
  for n = 1, #t do
    local p = t[n]
    if p == ${I} then out[n] = i elseif p == ${ITEM} then out[n] = item else out[n] = p end
  end
  return table.concat(out)
end
function request()
  turn = turn % #T + 1
  local t = T[turn]
  if t.fixed then return t.fixed end
  if type(t.path) ~= "table" and type(t.body) ~= "table" then
    t.fixed = wrk.format(t.method, t.path, t.headers, t.body)
    return t.fixed
  end
  local k = counts[turn]
  counts[turn] = k + 1
  local i = string.format("%.0f", BASE + tid * 1e9 + k)
  local item = t.cycle and t.cycle[k % #t.cycle + 1] or ""
  return wrk.format(t.method, build(t.path, i, item), t.headers, build(t.body, i, item))
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\\nWRK_RESULT {"requests":%.0f,"durationUs":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"timeout":%.0f,"status":%.0f,"p50Us":%.0f,"p99Us":%.0f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
`;

/** The wrk Lua script for these templates, or undefined if one of them cannot be written in it. */
function wrkScript(requests: MixedRequest[], base: number): string | undefined {
  const tables = requests.map(toLua);
  if (tables.some((t) => t === undefined)) return undefined;
  return `local BASE = ${base}\nlocal T = {\n${tables.join("\n")}\n}\n${LUA_BODY}`;
}

let wrkOnPath: boolean | undefined;
function hasWrk(): boolean {
  wrkOnPath ??= (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, "wrk"), fsConstants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return wrkOnPath;
}

function loaderSetting(pinned?: "wrk" | "autocannon"): "wrk" | "autocannon" | "auto" {
  const v = pinned ?? process.env.BENCH_LOADER ?? "auto";
  if (v !== "wrk" && v !== "autocannon" && v !== "auto") throw new Error(`BENCH_LOADER=${v}: expected wrk, autocannon or auto`);
  return v;
}

/** The wrk script to run these templates with, or undefined for autocannon (BENCH_LOADER decides). */
function chooseWrk(requests: MixedRequest[], pinned?: "wrk" | "autocannon"): string | undefined {
  const setting = loaderSetting(pinned);
  if (setting === "autocannon") return undefined;
  const script = wrkScript(requests, ++wrkRuns * 1e10);
  if (setting === "wrk") {
    if (!hasWrk()) throw new Error("BENCH_LOADER=wrk but no wrk on PATH");
    if (script === undefined) throw new Error("BENCH_LOADER=wrk but a pathFor/bodyFor is not a plain template in (i, item)");
  }
  return hasWrk() ? script : undefined;
}
let wrkRuns = 0;

/**
 * The load generator loadMixed() would use for these templates, to pin the same one on the loads
 * compared with them; autocannon (rather than an error) when BENCH_LOADER=wrk cannot send them.
 */
export function loaderFor(requests: MixedRequest[]): "wrk" | "autocannon" {
  if (loaderSetting() === "autocannon" || !hasWrk()) return "autocannon";
  return wrkScript(requests, 0) === undefined ? "autocannon" : "wrk";
}

/** Runs wrk (asynchronously: this process stays responsive) with a generated script; parses its done() line. */
async function runWrk(
  url: string,
  script: string,
  connections: number,
  duration: number,
): Promise<Omit<LoadResult, "cpuUsPerReq">> {
  const dir = tempDir();
  const file = join(dir, "load.lua");
  writeFileSync(file, script);
  try {
    const threads = Math.max(1, Math.min(2, connections));
    const args = ["-t", String(threads), "-c", String(connections), "-d", `${Math.max(1, Math.round(duration))}s`];
    const proc = spawn("wrk", [...args, "--timeout", "10s", "-s", file, url], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    proc.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    proc.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      proc.once("error", reject);
      proc.once("close", resolve);
    });
    const line = /^WRK_RESULT (.*)$/m.exec(out)?.[1];
    if (code !== 0 || line === undefined) throw new Error(`wrk exited ${code} without a result:\n${err}\n${out}`);
    const r = JSON.parse(line) as Record<"requests" | "durationUs" | "p50Us" | "p99Us", number> &
      Record<"connect" | "read" | "write" | "timeout" | "status", number>;
    const ms = (us: number) => Math.round(us / 10) / 100;
    return {
      rps: Math.round(r.requests / (r.durationUs / 1e6)),
      p50: ms(r.p50Us),
      p99: ms(r.p99Us),
      errors: r.connect + r.read + r.write + r.timeout,
      non2xx: r.status,
      total: r.requests,
      loader: "wrk",
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Adds cpuUsPerReq: the server's CPU time over the run divided by the requests. */
async function withCpu(pid: number | undefined, run: () => Promise<Omit<LoadResult, "cpuUsPerReq">>): Promise<LoadResult> {
  const cpu0 = pid ? processCpuMs(pid) : undefined;
  const out: LoadResult = await run();
  const cpu1 = pid ? processCpuMs(pid) : undefined;
  if (cpu0 !== undefined && cpu1 !== undefined && out.total > 0) out.cpuUsPerReq = Math.round(((cpu1 - cpu0) * 1000) / out.total);
  return out;
}

/**
 * Runs a load of several request templates at once (a mixed workload: every connection, or wrk
 * thread, cycles through `requests`) with wrk or autocannon (see the header) and returns the overall
 * throughput and latency percentiles.
 */
export function loadMixed(opts: MixedLoadOptions): Promise<LoadResult> {
  const script = chooseWrk(opts.requests, opts.loader);
  return withCpu(opts.pid, () =>
    script !== undefined ? runWrk(opts.url, script, opts.connections ?? 32, opts.duration ?? 10) : runAutocannon(opts),
  );
}

/**
 * Runs a load against one route and returns its throughput and latency percentiles. With
 * autocannon, latencies are whole milliseconds (its histogram truncates to 1 ms: anything under
 * 1 ms reads 0); wrk's have 0.01 ms.
 */
export function load(opts: LoadOptions): Promise<LoadResult> {
  const { url, connections, duration, pid, loader, ...request } = opts;
  return loadMixed({
    url,
    requests: [request],
    ...(loader !== undefined ? { loader } : {}),
    ...(connections !== undefined ? { connections } : {}),
    ...(duration !== undefined ? { duration } : {}),
    ...(pid !== undefined ? { pid } : {}),
  });
}

export interface SequentialOptions {
  url: string;
  method?: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  headers?: Record<string, string>;
  /** A body per request (unique i per request, warm-up included); JSON. Without it, no body. */
  bodyFor?: (i: number) => string;
  /** Seconds measured, after `warmup` seconds whose requests are discarded (default 1). */
  duration?: number;
  warmup?: number;
  /** The server's pid (Running.pid): adds cpuUsPerReq to the result. */
  pid?: number;
}

/**
 * One connection, one request at a time: latency with 0.01 ms resolution, where autocannon's
 * whole milliseconds say nothing. With wrk (when loadMixed() would use it): `-t1 -c1` for `warmup`
 * seconds (discarded), then for `duration` seconds. Otherwise node:http over one keep-alive
 * socket, each request timed with performance.now() from its start to its response's last byte;
 * that includes the client's own time (node:http building and parsing, some 0.05–0.1 ms, more
 * than wrk's).
 */
export async function sequentialLatency(opts: SequentialOptions): Promise<LoadResult> {
  const method = opts.method ?? (opts.bodyFor ? "POST" : "GET");
  const template: MixedRequest = {
    method,
    path: opts.path,
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.bodyFor ? { bodyFor: opts.bodyFor } : {}),
  };
  if (chooseWrk([template]) !== undefined) {
    const warmup = opts.warmup ?? 1;
    // a fresh script each run: its i values differ from the warm-up's
    if (warmup > 0) await runWrk(opts.url, chooseWrk([template]) as string, 1, warmup);
    const script = chooseWrk([template]) as string;
    return withCpu(opts.pid, () => runWrk(opts.url, script, 1, opts.duration ?? 10));
  }
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(opts.path, opts.url);
  let i = 0;
  const once = (): Promise<number> =>
    new Promise((resolve) => {
      const body = opts.bodyFor?.(i++);
      const headers: Record<string, string | number> = { ...opts.headers };
      if (body !== undefined) {
        headers["content-type"] ??= "application/json";
        headers["content-length"] = Buffer.byteLength(body);
      }
      const req = httpRequest(target, { method, agent, headers }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(0));
      });
      req.on("error", () => resolve(0));
      req.end(body);
    });
  try {
    const warmupEnd = performance.now() + (opts.warmup ?? 1) * 1000;
    while (performance.now() < warmupEnd) await once();
    const samples: number[] = [];
    let errors = 0;
    let non2xx = 0;
    const cpu0 = opts.pid ? processCpuMs(opts.pid) : undefined;
    const start = performance.now();
    const end = start + (opts.duration ?? 10) * 1000;
    while (performance.now() < end) {
      const t0 = performance.now();
      const status = await once();
      const ms = performance.now() - t0;
      if (status === 0) errors++;
      else if (status < 200 || status > 299) non2xx++;
      else samples.push(ms);
    }
    const elapsed = (performance.now() - start) / 1000;
    const cpu1 = opts.pid ? processCpuMs(opts.pid) : undefined;
    const total = samples.length + errors + non2xx;
    const at = (p: number) => Math.round(percentile(samples, p) * 100) / 100;
    const out: LoadResult = {
      rps: Math.round(total / elapsed),
      p50: at(50),
      p99: at(99),
      errors,
      non2xx,
      total,
      loader: "node",
    };
    if (cpu0 !== undefined && cpu1 !== undefined && total > 0) out.cpuUsPerReq = Math.round(((cpu1 - cpu0) * 1000) / total);
    return out;
  } finally {
    agent.destroy();
  }
}

/**
 * Cold start: ms from spawning `node dist/main.js start` (fresh db file each run: migrations
 * included) to the first 200 of /_sandbox/health, and the server's RSS once it has sat idle for
 * `idleMs` after that answer. Each run is paired with a spawn of `node -e ''` to its exit, and with
 * the same two measures of a bare node:http server answering every request with 200 (HTTP_FLOOR):
 * the floors no start, and no server's RSS, can go under on this machine at that moment. Medians of `runs`.
 */
export async function coldStart(
  runs = 5,
  idleMs = 1000,
): Promise<{
  medianMs: number;
  runsMs: number[];
  idleRssMb: number;
  nodeFloorMs: number;
  httpFloorMs: number;
  httpFloorRssMb: number;
}> {
  if (!existsSync(MAIN)) throw new Error("dist/main.js is missing: run `npm run build` (npm run bench does)");
  const runsMs: number[] = [];
  const rss: number[] = [];
  const floor: number[] = [];
  const httpMs: number[] = [];
  const httpRss: number[] = [];
  /** Spawn → first 200 of `/_sandbox/health`, then RSS after `idleMs`, of `node ...args` (the port appended). */
  const timeToHealth = async (args: string[], env: Record<string, string>) => {
    const port = await freePort();
    const t0 = performance.now();
    const { proc, output, kill } = spawnNode([...args, String(port)], env);
    try {
      const ms = Math.round(await firstOk(`http://127.0.0.1:${port}/_sandbox/health`, t0, proc, output));
      await delay(idleMs);
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))?.[1] ?? 0);
      return { ms, rssMb: Math.round(kb / 1024) };
    } finally {
      await kill();
    }
  };
  // one discarded start first: a build's first run writes the V8 code cache later starts read
  // (scripts/dist-main.mjs), as the first start after any build or install does
  for (let r = -1; r < runs; r++) {
    const f0 = performance.now();
    await new Promise((resolve) => spawn(process.execPath, ["-e", ""], { stdio: "ignore" }).once("exit", resolve));
    floor.push(Math.round(performance.now() - f0));
    const dir = tempDir();
    try {
      const run = await timeToHealth([MAIN, "start", "--host", "127.0.0.1", "--db", join(dir, "sandbox.db"), "--port"], {
        LOG_LEVEL: "warn",
      });
      const bare = await timeToHealth(["-e", HTTP_FLOOR], {});
      if (r >= 0) {
        runsMs.push(run.ms);
        rss.push(run.rssMb);
        httpMs.push(bare.ms);
        httpRss.push(bare.rssMb);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return {
    medianMs: median(runsMs),
    runsMs,
    idleRssMb: median(rss),
    nodeFloorMs: median(floor),
    httpFloorMs: median(httpMs),
    httpFloorRssMb: median(httpRss),
  };
}

/** A bare node:http server on the port given as its last argument, answering every request 200 with a small JSON body. */
const HTTP_FLOOR = `require("node:http").createServer((q, s) => { s.setHeader("content-type", "application/json"); s.end('{"status":"ok"}'); }).listen(Number(process.argv.at(-1)), "127.0.0.1");`;

/**
 * The p-th percentile (0 < p ≤ 100) of `xs` by nearest rank: the smallest sample with at least p%
 * of the samples at or below it (`percentile(xs, 100)` is the largest); 0 for no samples. The one
 * percentile of the benches.
 */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export type Row = Record<string, string | number | boolean | null | undefined>;

/**
 * One machine-readable result line; bench/run.ts collects every line that starts with `{"bench":`.
 * Its summary table has a column for each of these conventional fields: rps, p50, p99 (ms), cpuUsPerReq, errors,
 * non2xx, floorRps, vsFloor (or ratio: rps / floorRps), medianMs, target, pass; others go to `other`.
 */
export function emit(bench: string, fields: Row): void {
  console.log(JSON.stringify({ bench, ...fields }));
}

/**
 * `npm start` → the first 200 of health on the built tree, as a user runs it (npm, then
 * scripts/start.mjs: a freshness check and the server in one process); the median of `runs`.
 * Each run is paired with `npm start` in a folder whose package.json starts `node -e ''`, to its
 * exit: npm's own cost, which no `npm start` can go under on this machine at that moment (`npmFloorMs`).
 */
export async function npmStartMs(runs = 5): Promise<{ medianMs: number; runsMs: number[]; npmFloorMs: number }> {
  const runsMs: number[] = [];
  const floor: number[] = [];
  const empty = tempDir();
  writeFileSync(
    join(empty, "package.json"),
    JSON.stringify({ name: "npm-floor", private: true, scripts: { start: "node -e ''" } }),
  );
  for (let r = 0; r < runs; r++) {
    const f0 = performance.now();
    await new Promise((resolve) => spawn("npm", ["start"], { cwd: empty, stdio: "ignore" }).once("exit", resolve));
    floor.push(Math.round(performance.now() - f0));
    const dir = tempDir();
    const port = await freePort();
    const t0 = performance.now();
    const proc = spawn("npm", ["start", "--", "--port", String(port), "--host", "127.0.0.1", "--db", join(dir, "sandbox.db")], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: "ignore",
      detached: true, // npm's own process group: stopping it stops the server it runs
    });
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    try {
      runsMs.push(Math.round(await firstOk(`http://127.0.0.1:${port}/_sandbox/health`, t0, proc, () => "")));
    } finally {
      if (proc.pid !== undefined && proc.exitCode === null) process.kill(-proc.pid, "SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }
  rmSync(empty, { recursive: true, force: true });
  return { medianMs: median(runsMs), runsMs, npmFloorMs: median(floor) };
}

/** Prints rows as an aligned text table, columns in first-seen key order. */
export function printTable(rows: Row[]): void {
  if (rows.length === 0) return;
  const cols: string[] = [];
  for (const row of rows) for (const k of Object.keys(row)) if (!cols.includes(k)) cols.push(k);
  const cell = (v: Row[string]) => (v === undefined || v === null ? "" : typeof v === "number" ? fmt(v) : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, j) => {
        const w = widths[j] ?? 0;
        return /^-?[\d.,]+%?x?$/.test(v) ? v.padStart(w) : v.padEnd(w);
      })
      .join("  ")
      .trimEnd();
  console.log(line(cols));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(cols.map((c) => cell(row[c]))));
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(n < 10 ? 2 : 1);
}

// A webhook receiver in its own process: it must not share an event loop with autocannon or the sandbox.
const RECEIVER_SOURCE = `
const http = require("node:http");
let n = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => { n++; res.statusCode = 200; res.end("ok"); });
});
server.keepAliveTimeout = 30000;
server.listen(0, "127.0.0.1", () => console.log("PORT " + server.address().port));
process.on("message", () => process.send({ received: n }));
`;

export interface CountingReceiver {
  /** `http://127.0.0.1:PORT` + the path given. */
  url: string;
  /** How many requests it has answered so far. */
  received(): Promise<number>;
  /** Its process (its CPU time is part of what a delivery costs the machine). */
  pid: number;
  stop(): void;
}

/** Starts a receiver that answers every POST with 200 and counts them; `path` is appended to its URL. */
export function startCountingReceiver(path = "/hooks"): Promise<CountingReceiver> {
  const proc = spawn(process.execPath, ["-e", RECEIVER_SOURCE], { stdio: ["ignore", "pipe", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    proc.stdout?.on("data", (d: Buffer) => {
      const m = /PORT (\d+)/.exec(d.toString());
      if (!m) return;
      resolve({
        url: `http://127.0.0.1:${m[1]}${path}`,
        received: () =>
          new Promise((res) => {
            proc.once("message", (msg) => res((msg as { received: number }).received));
            proc.send("count");
          }),
        pid: proc.pid as number,
        stop: () => proc.kill("SIGTERM"),
      });
    });
    proc.once("exit", (code) => reject(new Error(`receiver exited ${code}`)));
  });
}

/** The built-in merchant's bearer token from the sandbox at `url` (POST /api/v1/auth). */
export async function merchantToken(url: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" }),
  });
  if (!res.ok) throw new Error(`POST /api/v1/auth answered ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

/** The billing details every bench body sends. */
export const BENCH_BILLING = {
  firstName: "Bench",
  lastName: "Mark",
  address1: "1 Load St",
  city: "London",
  state: "LDN",
  country: "GB",
  postalCode: "N1 9GU",
  email: "bench@example.com",
  dateOfBirth: "1990-01-31",
};

/** A valid card payment body (4111…, no 3DS), with a callbackUrl unless it is left out, as JSON text. */
export function paymentBody(requestId: string, callbackUrl?: string): string {
  return JSON.stringify({
    requestId,
    mid: "sandbox-mid-001",
    card: {
      number: "4111111111111111",
      cardHolderName: "Bench Mark",
      expMonth: "12",
      expYear: "2099",
      cvv: "737",
      requestThreeDSecure: false,
    },
    amount: "20.50",
    currency: "USD",
    lang: "en",
    callbackUrl,
    billingDetails: BENCH_BILLING,
    order: { orderId: requestId },
    device: { ip: "203.0.113.7", userAgent: "autocannon" },
  });
}

export interface ProbeResult {
  probes: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Times `GET <url>/_sandbox/health` one request at a time on one keep-alive socket (node:http, so
 * the probe takes little of the machine), `gapMs` between answers, until `end()`: how long the
 * server's event loop leaves a request waiting. Measure an idle server with it in the same run and
 * quote the ratio (latency targets as a ratio to a floor measured in the same run).
 */
export function healthProbe(url: string, gapMs = 5): { end(): Promise<ProbeResult> } {
  return requestProbe(`${url}/_sandbox/health`, { gapMs });
}

/**
 * The same probe for any request: `bodyFor(i)` makes the i-th body (a POST), e.g. a card payment
 * with a fresh requestId in a sandbox while others are busy. An answer that is not 2xx counts in
 * `failed` and not in the times.
 */
export function requestProbe(
  url: string,
  opts: { gapMs?: number; headers?: Record<string, string>; bodyFor?: (i: number) => string } = {},
): { end(): Promise<ProbeResult & { failed: number }> } {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let failed = 0;
  let stop = false;
  let i = 0;
  const once = () =>
    new Promise<void>((resolve) => {
      const body = opts.bodyFor?.(i++);
      const headers: Record<string, string | number> = { ...opts.headers };
      if (body !== undefined) {
        headers["content-type"] = "application/json";
        headers["content-length"] = Buffer.byteLength(body);
      }
      const t0 = performance.now();
      const req = httpRequest(url, { method: body === undefined ? "GET" : "POST", agent, headers }, (res) => {
        res.resume();
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) times.push(performance.now() - t0);
          else failed++;
          resolve();
        });
      });
      req.on("error", () => {
        failed++;
        resolve();
      });
      req.end(body);
    });
  const loop = (async () => {
    while (!stop) {
      await once();
      await delay(opts.gapMs ?? 5);
    }
  })();
  return {
    async end() {
      stop = true;
      await loop;
      agent.destroy();
      const s = [...times].sort((a, b) => a - b);
      const pct = (p: number) => Number((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0).toFixed(2));
      return { probes: s.length, p50: pct(50), p99: pct(99), max: pct(100), failed };
    },
  };
}

/** A probe of `ms` real ms (an idle server's floor, measured in the same run as the busy figure). */
export async function probeFor(url: string, ms: number, gapMs = 5): Promise<ProbeResult> {
  const p = healthProbe(url, gapMs);
  await delay(ms);
  return p.end();
}

export interface Answer {
  status: number;
  body: string;
  ms: number;
}

/** One request on a keep-alive agent (node:http: little client time in the figure), timed to its last byte. */
export function timedCall(
  agent: HttpAgent,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const h: Record<string, string | number> = { ...headers };
    if (text !== undefined) {
      h["content-type"] = "application/json";
      h["content-length"] = Buffer.byteLength(text);
    }
    const t0 = performance.now();
    const req = httpRequest(url, { method, agent, headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), ms: performance.now() - t0 }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(text);
  });
}
