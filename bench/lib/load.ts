/**
 * Load against a server: wrk (a C program, far lighter than a Node client; BENCH_LOADER=wrk|autocannon|auto,
 * default auto = wrk when it is on PATH and every request template can be written as a wrk Lua
 * script), else autocannon in this process. On a 2-core machine a Node load generator takes a whole
 * core from the server under test, so wrk's figures are the ones to compare with other wrk measurements.
 */
import { spawn } from "node:child_process";
import { accessSync, constants as fsConstants, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";
import { processCpuMs } from "./process.js";
import { tempDir } from "./servers.js";

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
export function chooseWrk(requests: MixedRequest[], pinned?: "wrk" | "autocannon"): string | undefined {
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
export async function runWrk(
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
export async function withCpu(pid: number | undefined, run: () => Promise<Omit<LoadResult, "cpuUsPerReq">>): Promise<LoadResult> {
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
