/**
 * Many sandboxes in one server (docs/parallel-suites.md), against the built server on a file
 * database (a temp dir; each sandbox a file in `<db>-sandboxes/`), four figures, each on a fresh server:
 *
 * 1. creation: p50/p99 ms of `POST /_sandbox/sandboxes` (300 one after another after 20 discarded,
 *    one keep-alive connection, timed to the last byte of the answer), then each deleted (timed too).
 *    Targets p50 ≤ 10 ms, p99 ≤ 30 ms. Also split: the first 64 (only opened) and the rest (each
 *    also makes the server close the least recently used sandbox, which the create waits behind).
 * 2. memory: the server's RSS (/proc/<pid>/status VmRSS) with 0 sandboxes, right after creating 1,000
 *    that each took one request (`POST {base}/api/v1/auth`; 4 clients at once), and once all are closed (the server keeps
 *    64 open, least recently used closed first, and closes the rest after 30 s idle: the bench waits
 *    until the server holds no sandbox file open). Target ≤ 1 GB added in all (≤ 1 MB each).
 * 3. 32 suites in parallel vs the same 32 one after another, against one server. A suite: create a
 *    sandbox (startTime 2026-01-15T12:00Z), auth, 20 card payments (same requestIds in every suite),
 *    a refund of 5.00 of the first, tokenize, a monthly subscription, advance P12M, check its 12
 *    charges (the advance's `ran.charges` and the journal), wait for its 35 webhooks at its own
 *    receiver path, delete. Cross-talk: a webhook at a suite's path that is not about its own
 *    transactions or subscription, or any at no suite's path. Run sequential, parallel, parallel,
 *    sequential after 2 warm-up suites; each mode's wall time is the mean of its two runs. Target:
 *    parallel faster, 0 cross-talk.
 * 4. card payments in a sandbox vs the root, same server, same run: wrk (or autocannon) at 32
 *    connections on `{root}/api/v1/payments/card` and `{baseUrl}/api/v1/payments/card`, fresh
 *    requestIds, rounds of BENCH_DURATION s (default 5) interleaved A B B A A B after a warm-up of each,
 *    without and with a callbackUrl. Target: the sandbox's req/s within 10% of the root's.
 *
 * Run with `npm run bench -- sandboxes`, or `npx tsx bench/sandboxes.ts` after `node scripts/build.mjs`;
 * BENCH_SANDBOX_PARTS=create,rss,suites,throughput runs some of them; BENCH_MAIN=/other/dist/main.js
 * measures another build. Prints one human line per figure
 * and JSON lines {"bench":"sandbox-create",...}, {"bench":"sandbox-rss",...}, {"bench":"sandbox-suites",...},
 * {"bench":"sandbox-card-payment[-callback]",...}. Exit code 1 only for wrong answers (errors, non-2xx,
 * cross-talk, a suite missing a webhook or a charge); a missed timing target is printed as MISSED.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import { Agent } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { exampleDevice } from "../src/platform/examples.js";
import {
  BENCH_BILLING,
  timedCall as call,
  drained,
  emit,
  type LoadResult,
  load,
  loaderFor,
  merchantToken,
  paymentBody,
  percentile,
  processCpuMs,
  type Running,
  rssMb,
  startCountingReceiver,
  startSandbox,
} from "./lib.js";

/** Another build's dist/main.js (e.g. a src/ change measured against this one); default: this worktree's. */
const MAIN = process.env.BENCH_MAIN;
const serverOptions = (args?: string[]) => ({ ...(MAIN ? { main: MAIN } : {}), ...(args ? { args } : {}) });
const PARTS = (process.env.BENCH_SANDBOX_PARTS ?? "create,rss,suites,throughput").split(",");
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CREATES = 300;
const CREATE_WARMUP = 20;
/** Sandboxes the server keeps open (src/sandboxes/registry.ts maxOpen). */
const MAX_OPEN = 64;
const IDLE_SANDBOXES = 1000;
const SUITES = 32;
const PAYMENTS_PER_SUITE = 20;
const START_TIME = "2026-01-15T12:00:00.000Z";
/** Per suite: 20 card callbacks, the refund's PENDING and SUCCEED, the subscription's first charge (a card callback), 12 charges. */
const WEBHOOKS_PER_SUITE = PAYMENTS_PER_SUITE + 2 + 1 + 12;

/** Wrong answers, cross-talk or a suite that missed its webhooks (a missed timing target is only printed). */
let broken = false;
const mark = (ok: boolean) => (ok ? "met" : "MISSED");

// ---------------------------------------------------------------------------------------------
// HTTP helpers

/** `call` that insists on one status and parses the JSON answer. */
async function json<T>(
  agent: Agent,
  method: string,
  url: string,
  body?: unknown,
  headers?: Record<string, string>,
  expect = 200,
) {
  const a = await call(agent, method, url, body, headers);
  if (a.status !== expect) throw new Error(`${method} ${url} answered ${a.status} (expected ${expect}): ${a.body.slice(0, 300)}`);
  return (a.body ? JSON.parse(a.body) : undefined) as T;
}

interface Created {
  id: string;
  baseUrl: string;
}

const createSandbox = async (agent: Agent, url: string, body: Record<string, unknown> = {}) => {
  const a = await call(agent, "POST", `${url}/_sandbox/sandboxes`, body);
  if (a.status !== 201) throw new Error(`POST /_sandbox/sandboxes answered ${a.status}: ${a.body.slice(0, 300)}`);
  const created = JSON.parse(a.body) as Created;
  // the baseUrl names the server's public URL (localhost); the bench talks to 127.0.0.1
  return { id: created.id, base: `${url}/sandboxes/${created.id}`, ms: a.ms };
};

const deleteSandbox = async (agent: Agent, url: string, id: string) => {
  const a = await call(agent, "DELETE", `${url}/_sandbox/sandboxes/${id}`);
  if (a.status !== 204) throw new Error(`DELETE ${id} answered ${a.status}: ${a.body.slice(0, 300)}`);
  return a.ms;
};

const authHeaders = async (base: string) => ({ authorization: await merchantToken(base) });

/** VmRSS of a process in MB (0.1 MB steps); NaN once it is gone. */
const rss = (pid: number): number => Math.round(rssMb(pid) * 10) / 10;

/** Sandbox database files the server holds open now (its fds into `<db>-sandboxes/`, the main files only). */
function openSandboxFiles(pid: number): number {
  let n = 0;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    throw new Error(`process ${pid} is gone`);
  }
  for (const fd of fds) {
    try {
      if (/-sandboxes\/sbx_[0-9A-Za-z]+\.db$/.test(readlinkSync(`/proc/${pid}/fd/${fd}`))) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

/** The error, with the server's last output and how it ended when it is no longer running (something killed it?). */
function explained(server: Running, err: unknown): unknown {
  const out = server.output();
  if (!out.includes("[exited:")) return err;
  return new Error(`${err instanceof Error ? err.message : String(err)}; the server is gone:\n${out.slice(-1500)}`);
}

// ---------------------------------------------------------------------------------------------
// 1. creation latency

async function creation(): Promise<void> {
  const server = await startSandbox(serverOptions());
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const warm: string[] = [];
    for (let i = 0; i < CREATE_WARMUP; i++) warm.push((await createSandbox(agent, server.url)).id);
    for (const id of warm) await deleteSandbox(agent, server.url, id);
    const ids: string[] = [];
    const createMs: number[] = [];
    const cpu0 = processCpuMs(server.pid);
    const t0 = performance.now();
    for (let i = 0; i < CREATES; i++) {
      const c = await createSandbox(agent, server.url, { name: `bench-${i}` });
      ids.push(c.id);
      createMs.push(c.ms);
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = processCpuMs(server.pid);
    const cpuMs = cpu0 !== undefined && cpu1 !== undefined ? Math.round(((cpu1 - cpu0) / CREATES) * 10) / 10 : undefined;
    const deleteMs: number[] = [];
    for (const id of ids) deleteMs.push(await deleteSandbox(agent, server.url, id));
    const p50 = percentile(createMs, 50, 2);
    const p99 = percentile(createMs, 99, 2);
    // up to 64 open, a create only opens; beyond, the server also closes the least recently used one
    const first = createMs.slice(0, MAX_OPEN);
    const rest = createMs.slice(MAX_OPEN);
    const pass = p50 <= 10 && p99 <= 30;
    console.log(
      `sandbox creation (POST /_sandbox/sandboxes, file database, ${CREATES} one after another after ${CREATE_WARMUP} discarded): ` +
        `p50 ${p50} ms, p99 ${p99} ms, max ${percentile(createMs, 100, 2)} ms (${Math.round(CREATES / seconds)}/s, ${cpuMs ?? "?"} ms server CPU each); ` +
        `targets p50 ≤ 10 ms, p99 ≤ 30 ms: ${mark(pass)}. The first ${MAX_OPEN} (nothing to close): p50 ${percentile(first, 50, 2)} ms, ` +
        `p99 ${percentile(first, 99, 2)} ms; the rest (each closes the least recently used): p50 ${percentile(rest, 50, 2)} ms, p99 ${percentile(rest, 99, 2)} ms. ` +
        `Deleting them: p50 ${percentile(deleteMs, 50, 2)} ms, p99 ${percentile(deleteMs, 99, 2)} ms`,
    );
    emit("sandbox-create", {
      p50,
      p99,
      maxMs: percentile(createMs, 100, 2),
      count: CREATES,
      cpuMsPerCreate: cpuMs,
      firstP50: percentile(first, 50, 2),
      restP50: percentile(rest, 50, 2),
      restP99: percentile(rest, 99, 2),
      deleteP50: percentile(deleteMs, 50, 2),
      deleteP99: percentile(deleteMs, 99, 2),
      target: "p50<=10ms,p99<=30ms",
      pass,
    });
  } catch (err) {
    throw explained(server, err);
  } finally {
    agent.destroy();
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. RSS with 1,000 idle sandboxes

async function memory(): Promise<void> {
  const server = await startSandbox(serverOptions(["--max-sandboxes", String(IDLE_SANDBOXES)]));
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  let sampler: ReturnType<typeof setInterval> | undefined;
  try {
    await merchantToken(server.url); // the root answered a request too
    await delay(1000);
    const baseline = rss(server.pid);
    let peak = baseline;
    sampler = setInterval(() => {
      const now = rss(server.pid);
      if (now > peak) peak = now;
    }, 100);
    const t0 = performance.now();
    let next = 0;
    // 4 clients: create, then one request in it
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < IDLE_SANDBOXES) {
          next++;
          const c = await createSandbox(agent, server.url);
          await json(agent, "POST", `${c.base}/api/v1/auth`, {
            merchantKey: "sandbox_merchant_key",
            merchantSecret: "sandbox_merchant_secret",
          });
        }
      }),
    );
    const createSeconds = (performance.now() - t0) / 1000;
    const afterCreate = rss(server.pid);
    const openAfterCreate = openSandboxFiles(server.pid);
    const listed = await json<unknown[]>(agent, "GET", `${server.url}/_sandbox/sandboxes`);
    // the server closes the ones beyond 64 at once, the rest after 30 s without a request
    const t1 = performance.now();
    let open = openAfterCreate;
    while (open > 0 && performance.now() - t1 < 60_000) {
      await delay(1000);
      open = openSandboxFiles(server.pid);
    }
    const closedAfterS = (performance.now() - t1) / 1000;
    await delay(2000);
    clearInterval(sampler);
    const afterIdle = rss(server.pid);
    const added = afterIdle - baseline;
    const perSandboxKb = Math.round((added * 1024) / IDLE_SANDBOXES);
    if (listed.length !== IDLE_SANDBOXES) broken = true;
    const pass = open === 0 && listed.length === IDLE_SANDBOXES && added <= 1024;
    console.log(
      `server RSS: ${baseline} MB with 0 sandboxes; ${afterCreate} MB right after creating ${listed.length} (${createSeconds.toFixed(1)} s, ` +
        `one request each; ${openAfterCreate} files open then), peak ${peak} MB; ${afterIdle} MB once all were closed ` +
        `(${open} files open, ${closedAfterS.toFixed(0)} s after the last request): +${added.toFixed(1)} MB, ${perSandboxKb} KB a sandbox; ` +
        `target ≤ 1 GB added (≤ 1 MB each): ${mark(pass)}`,
    );
    emit("sandbox-rss", {
      sandboxes: listed.length,
      baselineMb: baseline,
      afterCreateMb: afterCreate,
      peakMb: peak,
      idleMb: afterIdle,
      addedMb: Number(added.toFixed(1)),
      perSandboxKb,
      openAfterCreate,
      openAtEnd: open,
      target: "<=1GB added",
      pass,
    });
  } catch (err) {
    throw explained(server, err);
  } finally {
    clearInterval(sampler);
    agent.destroy();
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 3. 32 suites in parallel vs one after another

// A receiver in its own process that keeps, per path, the ids each webhook was about.
const RECORDING_RECEIVER = `
const http = require("node:http");
const seen = new Map();
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    res.statusCode = 200;
    res.end("ok");
    const path = req.url.split("?")[0];
    let b = {};
    try { b = JSON.parse(Buffer.concat(chunks).toString()); } catch {}
    if (!seen.has(path)) seen.set(path, []);
    seen.get(path).push([b.transactionId ?? null, b.subscriptionId ?? null, b.refundId ?? null]);
  });
});
server.keepAliveTimeout = 30000;
server.listen(0, "127.0.0.1", () => console.log("PORT " + server.address().port));
process.on("message", (m) => {
  if (m.op === "count") process.send({ id: m.id, n: (seen.get(m.path) ?? []).length });
  else process.send({ id: m.id, all: Object.fromEntries(seen) });
});
`;

type Hook = [string | null, string | null, string | null];

interface RecordingReceiver {
  url: string;
  count(path: string): Promise<number>;
  all(): Promise<Record<string, Hook[]>>;
  stop(): void;
}

function startRecordingReceiver(): Promise<RecordingReceiver> {
  const proc: ChildProcess = spawn(process.execPath, ["-e", RECORDING_RECEIVER], { stdio: ["ignore", "pipe", "inherit", "ipc"] });
  let seq = 0;
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  proc.on("message", (m) => {
    const msg = m as { id: number };
    waiting.get(msg.id)?.(msg as unknown as Record<string, unknown>);
    waiting.delete(msg.id);
  });
  const ask = (m: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = ++seq;
      waiting.set(id, resolve);
      proc.send({ ...m, id });
    });
  return new Promise((resolve, reject) => {
    proc.stdout?.on("data", (d: Buffer) => {
      const port = /PORT (\d+)/.exec(d.toString())?.[1];
      if (!port) return;
      resolve({
        url: `http://127.0.0.1:${port}`,
        count: async (path) => (await ask({ op: "count", path })).n as number,
        all: async () => (await ask({ op: "all" })).all as Record<string, Hook[]>,
        stop: () => proc.kill("SIGTERM"),
      });
    });
    proc.once("exit", (code) => reject(new Error(`receiver exited ${code}`)));
  });
}

interface SuiteResult {
  path: string;
  ms: number;
  charges: number;
  journalCharges: number;
  webhooks: number;
  own: { txs: Set<string>; subscriptionId: string; refundId: string };
}

/** One CI test file's worth of work in its own sandbox (see the header); throws on anything unexpected. */
async function suite(url: string, receiver: RecordingReceiver, path: string): Promise<SuiteResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const t0 = performance.now();
  try {
    const { id, base } = await createSandbox(agent, url, { name: path, startTime: START_TIME });
    const auth = await authHeaders(base);
    const cb = `${receiver.url}${path}`;
    const txs = new Set<string>();
    const first: string[] = [];
    for (let i = 0; i < PAYMENTS_PER_SUITE; i++) {
      const r = await json<{ transactionId: string; transactionStatus: string }>(
        agent,
        "POST",
        `${base}/api/v1/payments/card`,
        paymentBody(`pay-${i}`, cb),
        auth,
      );
      if (r.transactionStatus !== "SUCCEED") throw new Error(`${path}: payment ${i} is ${r.transactionStatus}`);
      txs.add(r.transactionId);
      first.push(r.transactionId);
    }
    const refund = await json<{ refundId: string }>(
      agent,
      "POST",
      `${base}/v1/refunds/card`,
      {
        requestId: "refund-1",
        mid: "sandbox-mid-001",
        transactionId: first[0],
        amount: "5.00",
        reason: "bench",
        callbackUrl: cb,
      },
      auth,
    );
    const token = await json<{ token: string }>(
      agent,
      "POST",
      `${base}/api/v1/payments/card/tokenize`,
      {
        requestId: "tok-1",
        merchantId: 1001,
        card: { number: "4111111111111111", expMonth: "12", expYear: "2030", cvv: "123" },
        billingDetails: BENCH_BILLING,
      },
      auth,
    );
    const sub = await json<{ subscriptionId: string; status: string; transactionId: string }>(
      agent,
      "POST",
      `${base}/api/v1/payments/card/recurring`,
      {
        requestId: "sub-1",
        mid: "sandbox-mid-001",
        cardToken: token.token,
        plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: START_TIME.slice(0, 10) },
        order: { orderId: "plan-1" },
        device: exampleDevice("bench"),
        callbackUrl: cb,
        successRedirectUrl: "https://shop.example/ok",
        failureRedirectUrl: "https://shop.example/ko",
      },
      auth,
    );
    if (sub.status !== "ACTIVE") throw new Error(`${path}: subscription is ${sub.status}`);
    txs.add(sub.transactionId);
    const adv = await json<{ ran: { charges: number } }>(agent, "POST", `${base}/_sandbox/clock/advance`, { by: "P12M" });
    const journal = await json<Array<{ kind: string; subscriptionId: string | null }>>(
      agent,
      "GET",
      `${base}/_sandbox/webhooks?subscriptionId=${sub.subscriptionId}`,
    );
    const journalCharges = journal.filter(
      (w) => w.kind === "subscription_charge" && w.subscriptionId === sub.subscriptionId,
    ).length;
    // its webhooks at its own path: the advance waited for the charges' ones, the payments' leave after their commit
    let webhooks = await receiver.count(path);
    for (let i = 0; i < 200 && webhooks < WEBHOOKS_PER_SUITE; i++) {
      await delay(25);
      webhooks = await receiver.count(path);
    }
    await deleteSandbox(agent, url, id);
    return {
      path,
      ms: performance.now() - t0,
      charges: adv.ran.charges,
      journalCharges,
      webhooks,
      own: { txs, subscriptionId: sub.subscriptionId, refundId: refund.refundId },
    };
  } finally {
    agent.destroy();
  }
}

/** Webhooks at a suite's path that are not about its own payments, refund or subscription, plus any at no suite's path. */
function crossTalk(all: Record<string, Hook[]>, results: SuiteResult[], prefix: string): number {
  const byPath = new Map(results.map((r) => [r.path, r]));
  let n = 0;
  for (const [path, hooks] of Object.entries(all)) {
    if (!path.startsWith(prefix)) continue;
    const r = byPath.get(path);
    for (const [tx, sub, rf] of hooks) {
      const own =
        r && ((sub !== null && sub === r.own.subscriptionId) || (tx !== null && r.own.txs.has(tx)) || rf === r.own.refundId);
      if (!own) n++;
    }
  }
  return n;
}

async function suites(): Promise<void> {
  const receiver = await startRecordingReceiver();
  const server = await startSandbox(serverOptions());
  try {
    // warm-up: two suites (the server's first requests compile its hot paths)
    for (let k = 0; k < 2; k++) await suite(server.url, receiver, `/warm/${k}`);

    const run = async (mode: "sequential" | "parallel", n: number) => {
      const prefix = `/${mode}-${n}/`;
      const t0 = performance.now();
      let results: SuiteResult[];
      if (mode === "parallel") {
        results = await Promise.all(Array.from({ length: SUITES }, (_, k) => suite(server.url, receiver, `${prefix}${k}`)));
      } else {
        results = [];
        for (let k = 0; k < SUITES; k++) results.push(await suite(server.url, receiver, `${prefix}${k}`));
      }
      const wallMs = performance.now() - t0;
      await delay(500); // anything late or stray arrives
      const all = await receiver.all();
      const cross = crossTalk(all, results, prefix);
      const received = Object.entries(all)
        .filter(([p]) => p.startsWith(prefix))
        .reduce((a, [, h]) => a + h.length, 0);
      const complete = results.every((r) => r.charges === 12 && r.journalCharges === 12 && r.webhooks === WEBHOOKS_PER_SUITE);
      return {
        mode,
        wallMs,
        results,
        cross,
        received,
        complete,
        suiteP50: percentile(
          results.map((r) => r.ms),
          50,
          2,
        ),
      };
    };
    // sequential, parallel, parallel, sequential: neither mode always runs on the warmer server
    const runs: Array<Awaited<ReturnType<typeof run>>> = [];
    for (const mode of ["sequential", "parallel", "parallel", "sequential"] as const) runs.push(await run(mode, runs.length));
    const merge = (mode: "sequential" | "parallel") => {
      const xs = runs.filter((r) => r.mode === mode);
      return {
        mode,
        wallMs: xs.reduce((a, x) => a + x.wallMs, 0) / xs.length,
        each: xs.map((x) => (x.wallMs / 1000).toFixed(2)).join(" and "),
        cross: xs.reduce((a, x) => a + x.cross, 0),
        received: xs.reduce((a, x) => a + x.received, 0),
        complete: xs.every((x) => x.complete),
        suiteP50: percentile(
          xs.flatMap((x) => x.results.map((r) => r.ms)),
          50,
          2,
        ),
      };
    };
    const seq = merge("sequential");
    const par = merge("parallel");
    const ratio = par.wallMs / seq.wallMs;
    const correct = seq.cross === 0 && par.cross === 0 && seq.complete && par.complete;
    if (!correct) broken = true;
    const pass = par.wallMs < seq.wallMs && correct;
    const describe = (x: typeof seq) =>
      `${x.mode} ${(x.wallMs / 1000).toFixed(2)} s (mean of ${x.each} s; a suite p50 ${(x.suiteP50 / 1000).toFixed(2)} s; ${x.received} webhooks, ` +
      `${x.complete ? `each its ${WEBHOOKS_PER_SUITE} and 12 charges` : "SOME SUITE INCOMPLETE"}, cross-talk ${x.cross})`;
    console.log(
      `${SUITES} suites (create, auth, ${PAYMENTS_PER_SUITE} payments, a refund, a subscription advanced P12M, delete): ` +
        `${describe(par)} vs ${describe(seq)}: parallel/sequential ${ratio.toFixed(2)}; ` +
        `target parallel faster, no cross-talk: ${mark(pass)}`,
    );
    emit("sandbox-suites", {
      suites: SUITES,
      parallelMs: Math.round(par.wallMs),
      sequentialMs: Math.round(seq.wallMs),
      parallelVsSequential: Number(ratio.toFixed(3)),
      parallelSuiteP50Ms: Math.round(par.suiteP50),
      sequentialSuiteP50Ms: Math.round(seq.suiteP50),
      crossTalk: seq.cross + par.cross,
      webhooks: seq.received + par.received,
      complete: seq.complete && par.complete,
      target: "parallel<sequential,crossTalk=0",
      pass,
    });
  } catch (err) {
    throw explained(server, err);
  } finally {
    await server.stop();
    receiver.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 4. card payment throughput: a sandbox vs the root

async function throughput(): Promise<void> {
  const receiver = await startCountingReceiver();
  const server = await startSandbox(serverOptions());
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { base } = await createSandbox(agent, server.url, { name: "throughput" });
    const targets = {
      root: { path: "/api/v1/payments/card", auth: await authHeaders(server.url) },
      sandbox: { path: `${new URL(base).pathname}/api/v1/payments/card`, auth: await authHeaders(base) },
    };
    let run = 0;
    const loader = loaderFor([{ method: "POST", path: targets.root.path, bodyFor: (i) => paymentBody(`x-${i}`) }]);
    const pay = (which: keyof typeof targets, callback: boolean, duration: number) => {
      const prefix = `${which}-${++run}-`;
      const t = targets[which];
      return load({
        url: server.url,
        method: "POST",
        path: t.path,
        headers: t.auth,
        bodyFor: callback ? (i) => paymentBody(`${prefix}${i}`, receiver.url) : (i) => paymentBody(`${prefix}${i}`),
        connections: 32,
        duration,
        pid: server.pid,
        loader,
      });
    };
    for (const callback of [false, true]) {
      const got: Record<keyof typeof targets, LoadResult[]> = { root: [], sandbox: [] };
      for (const which of ["root", "sandbox"] as const) {
        await pay(which, callback, 2);
        if (callback) await drained(receiver);
      }
      // A B B A A B: neither side always goes first while the databases grow
      for (const which of ["root", "sandbox", "sandbox", "root", "root", "sandbox"] as const) {
        got[which].push(await pay(which, callback, DURATION));
        if (callback) await drained(receiver);
      }
      const mean = (xs: LoadResult[], f: (x: LoadResult) => number | undefined) =>
        Math.round(xs.reduce((a, x) => a + (f(x) ?? 0), 0) / xs.length);
      const sum = (xs: LoadResult[]) => ({
        rps: mean(xs, (x) => x.rps),
        cpu: mean(xs, (x) => x.cpuUsPerReq),
        p99: Math.max(...xs.map((x) => x.p99)),
        bad: xs.reduce((a, x) => a + x.errors + x.non2xx, 0),
        each: xs.map((x) => x.rps).join("/"),
      });
      const r = sum(got.root);
      const s = sum(got.sandbox);
      const ratio = r.rps > 0 ? s.rps / r.rps : 0;
      const cpuRatio = r.cpu > 0 ? s.cpu / r.cpu : 0;
      if (r.bad > 0 || s.bad > 0) broken = true;
      const pass = ratio >= 0.9 && r.bad === 0 && s.bad === 0;
      const name = callback ? "with a callback" : "no callback";
      console.log(
        `card payments ${name}, ${DURATION} s rounds ×3 each (${loader}, 32 connections): root ${r.rps} req/s (${r.each}), ` +
          `${r.cpu} µs CPU/req, p99 ${r.p99} ms; sandbox ${s.rps} req/s (${s.each}), ${s.cpu} µs CPU/req, p99 ${s.p99} ms; ` +
          `sandbox/root ${ratio.toFixed(2)} req/s, ${cpuRatio.toFixed(2)} CPU/req; ${r.bad + s.bad} errors or non-2xx; ` +
          `target within 10%: ${mark(pass)}`,
      );
      emit(callback ? "sandbox-card-payment-callback" : "sandbox-card-payment", {
        rps: s.rps,
        p99: s.p99,
        cpuUsPerReq: s.cpu,
        rootRps: r.rps,
        rootCpuUsPerReq: r.cpu,
        rootP99: r.p99,
        vsRoot: Number(ratio.toFixed(3)),
        cpuVsRoot: Number(cpuRatio.toFixed(3)),
        errors: r.bad + s.bad,
        target: "sandbox>=0.9*root",
        pass,
        loader,
      });
    }
  } catch (err) {
    throw explained(server, err);
  } finally {
    agent.destroy();
    await server.stop();
    receiver.stop();
  }
}

const parts: Record<string, () => Promise<void>> = { create: creation, rss: memory, suites, throughput };
for (const p of PARTS) {
  const f = parts[p];
  if (!f) throw new Error(`BENCH_SANDBOX_PARTS: unknown part ${p} (create, rss, suites, throughput)`);
  await f();
}
if (broken) {
  console.error("some answers were wrong (errors, non-2xx, cross-talk or missing webhooks): the figures above are not valid");
  process.exitCode = 1;
}
