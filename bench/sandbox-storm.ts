/**
 * Sandboxes at once (docs/performance.md "Sandboxes at once"): what a test runner does, every worker
 * asking for its sandbox at the same moment, against the built server. Each figure is printed beside
 * its at-rest baseline measured on the same server in the same round, and beside its target.
 *
 * Two worlds are built once in this process (`createApp` on `:memory:`, no network) and saved as
 * snapshot files: the small one, 2,000 card payments; the large one, 10,000 card payments, 500 card
 * tokens and 200 monthly subscriptions (their first callbacks pending). A round is one fresh server
 * (`--db` a temp file, or `:memory:` for the `memory` storage) with both worlds loaded as sandboxes and
 * a bystander sandbox (where card payments are probed), then, in order:
 *
 * 1. at rest: `GET /_sandbox/health` and a card payment in the bystander, each probed one at a time
 *    (5 ms between answers) for 1.5 s; 10 creates and 10 forks of the small world one after another
 *    (each deleted after): the baselines;
 * 2. the fork storm: 100 forks of the small world from 16 clients, both probes running. Targets: fork
 *    p50 ≤ 100 ms, p99 ≤ 250 ms; health and the bystander's payment p99 ≤ 50 ms;
 * 3. memory: the server's RSS before the fork storm, once the 100 forks are idle and closed (the
 *    server closes a sandbox 30 s after its last request: the bench waits 33 s, BENCH_IDLE=0 skips
 *    it), and after all 100 are deleted. Targets: an idle fork ≤ 1 MB; RSS after the deletes within
 *    50 MB of before;
 * 4. the create storm: 300 `POST /_sandbox/sandboxes` from 16 clients (each its own keep-alive
 *    connection) while both probes run. Targets: create p99 ≤ 150 ms, health p99 ≤ 50 ms. Then the
 *    reopen: once the server has closed those beyond the 64 it keeps open (its tick), the first
 *    request (`GET {baseUrl}/_sandbox/clock`) to 100 closed ones, one after another, beside the
 *    second request to each. Target: the first's p50 ≤ 20 ms;
 * 5. one fork at a time of the large world (30, after 3 discarded, each deleted). Targets p50 ≤ 20 ms,
 *    p99 ≤ 60 ms; a load of its snapshot file (10, after 2 discarded). Target p50 ≤ 50 ms;
 * 6. a suite of 32 test files, 4 at once (BENCH_SUITE_PARALLEL), each getting a prepared world
 *    (bench/lib/suite.ts),
 *    running one test in it and deleting it (the fixture pattern of docs/snapshots.md): `build`
 *    (each file builds its world with 31 API calls and an advance, the baseline), `snapshot` (each
 *    starts from the world's file) and `from` (each forks the world). Target: `from` at least 2×
 *    faster than the build before this work (0.78 s quiet).
 *
 * BENCH_STORAGE=file,memory (default both): `file` is a server on a database file, whose sandboxes
 * are files; `memory` a server on `:memory:`, whose sandboxes are all in memory (what
 * `"storage": "memory"` asks of a file server: docs/parallel-suites.md). The machine is shared: compare
 * builds in the same session. BENCH_COMPARE=<other dist/main.js> runs rounds of this build (A) and
 * that one (B) alternately, A B B A ..., and prints both sides' medians; BENCH_ROUNDS (default 1 a
 * side), BENCH_MAIN (A: another build), BENCH_NODE_ARGS (the servers' node flags, e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof`), BENCH_WORLD_DIR (keep the worlds' files there for the next run). The
 * load average is printed with each round. BENCH_SUITE_ONLY=1 runs part 6 alone, quick to repeat: no
 * worlds, a warm-up suite, then each way of BENCH_SUITE_WAYS (default `from` alone) BENCH_SUITE_REPEAT
 * times (default 5), its median. BENCH_ONLY=large runs step 5 alone (the large world's forks and
 * loads).
 *
 *   npm run bench -- sandbox-storm
 *   BENCH_COMPARE=/tmp/base/dist/main.js BENCH_ROUNDS=3 npx tsx bench/sandbox-storm.ts
 *   BENCH_SUITE_ONLY=1 BENCH_COMPARE=/tmp/base/dist/main.js BENCH_ROUNDS=2 npx tsx bench/sandbox-storm.ts
 *
 * JSON lines {"bench":"storm-<figure>[-memory][-b]",...}: this build's medians, `-b` the other's.
 * Exit code 1 only for wrong answers (a call that was not 2xx); a missed target is printed as MISSED.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { createApp } from "../src/app.js";
import { defaultConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { ManualClock } from "../src/platform/clock.js";
import { readSnapshot, writeSnapshot } from "../src/snapshots/snapshot-file.js";
import {
  type Answer,
  BENCH_BILLING,
  timedCall as call,
  emit,
  fromClients,
  healthProbe,
  median,
  merchantToken,
  paymentBody,
  percentile,
  printTable,
  processCpuMs,
  type Row,
  type Running,
  requestProbe,
  rssMb,
  SUITE_FILES,
  type SuiteWay,
  startSandbox,
  suite,
} from "./lib.js";

const CLIENTS = 16;
const CREATES = 300;
const FORKS = 100;
const SINGLE = 30;
const LOADS = 10;
const REOPENS = 100;
const REST_MS = 1_500;
const SNAPSHOT = "application/vnd.paysandbox.snapshot";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const MAIN_A = process.env.BENCH_MAIN;
const MAIN_B = process.env.BENCH_COMPARE;
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
const STORAGES = (process.env.BENCH_STORAGE ?? "file,memory").split(",") as Array<"file" | "memory">;
const IDLE = process.env.BENCH_IDLE !== "0";
/** BENCH_SUITE_ONLY=1: part 6 alone (no worlds loaded), after a warm-up suite; for quick iterations. */
const SUITE_ONLY = process.env.BENCH_SUITE_ONLY === "1";
const SUITE_PARALLEL = Number(process.env.BENCH_SUITE_PARALLEL ?? 4);
const SUITE_WAYS = (process.env.BENCH_SUITE_WAYS ?? (SUITE_ONLY ? "from" : "build,snapshot,from")).split(",") as SuiteWay[];
const SUITE_REPEAT = Number(process.env.BENCH_SUITE_REPEAT ?? (SUITE_ONLY ? 5 : 1));
/** BENCH_ONLY=large: only step 5 (the large world's forks and loads), after the warm-up. */
const LARGE_ONLY = process.env.BENCH_ONLY === "large";
/** The server closes a sandbox this long after its last request (src/sandboxes/), plus two ticks. */
const IDLE_WAIT_MS = 33_000;

let wrong = 0;
const r2 = (x: number) => Math.round(x * 100) / 100;

function expect(what: string, a: Answer, status = 201): Answer {
  if (a.status !== status) {
    wrong++;
    throw new Error(`${what}: ${a.status} ${a.body.slice(0, 300)}`);
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// The worlds

interface WorldSize {
  name: string;
  payments: number;
  tokens: number;
  subscriptions: number;
}
const SMALL: WorldSize = { name: "small", payments: 2_000, tokens: 0, subscriptions: 0 };
const LARGE: WorldSize = { name: "large", payments: 10_000, tokens: 500, subscriptions: 200 };

/** A world built in this process, as its snapshot file. */
async function buildWorld(size: WorldSize): Promise<Buffer> {
  const t0 = performance.now();
  const ctx = createContext({
    config: defaultConfig({ publicUrl: "http://bench.test" }),
    clock: new ManualClock(Date.UTC(2026, 0, 15, 12)),
  });
  const app = createApp(ctx);
  const send = async (method: string, path: string, body?: string, auth?: string) => {
    const res = await app.fetch(
      new Request(`http://bench.test${path}`, {
        method,
        headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
        ...(body === undefined ? {} : { body }),
      }),
    );
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const login = JSON.stringify({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" });
  const auth = ((await (await send("POST", "/api/v1/auth", login)).json()) as { token: string }).token;
  for (let i = 0; i < size.payments; i++) await send("POST", "/api/v1/payments/card", paymentBody(`world-pay-${i}`), auth);
  const tokens: string[] = [];
  for (let i = 0; i < size.tokens; i++) {
    const body = JSON.stringify({
      requestId: `world-tok-${i}`,
      merchantId: 1001,
      card: { number: "4111111111111111", expMonth: "12", expYear: "2099", cvv: "737" },
      billingDetails: BENCH_BILLING,
    });
    tokens.push(((await (await send("POST", "/api/v1/payments/card/tokenize", body, auth)).json()) as { token: string }).token);
  }
  for (let i = 0; i < size.subscriptions; i++) {
    const body = JSON.stringify({
      requestId: `world-sub-${i}`,
      mid: "sandbox-mid-001",
      cardToken: tokens[i % tokens.length],
      plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2026-01-15" },
      order: { orderId: `world-sub-${i}` },
      device: { ip: "203.0.113.7", userAgent: "bench" },
      // nothing listens there: each subscription's first callback is pending in the world (a copy skips it)
      callbackUrl: "http://127.0.0.1:9/hooks",
      successRedirectUrl: "https://shop.example/ok",
      failureRedirectUrl: "https://shop.example/ko",
    });
    await send("POST", "/api/v1/payments/card/recurring", body, auth);
  }
  const snap = await app.fetch(new Request("http://bench.test/_sandbox/snapshot"));
  const file = Buffer.from(await snap.arrayBuffer());
  await ctx.work.idle();
  await ctx.webhooks.close();
  ctx.db.$client.close();
  console.log(
    `the ${size.name} world built in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${size.payments} payments, ` +
      `${size.tokens} tokens, ${size.subscriptions} subscriptions; its snapshot ${(file.length / 1024 / 1024).toFixed(1)} MB`,
  );
  return file;
}

/** BENCH_WORLD_DIR: the worlds' files are read from there when they exist, else built and written there. */
async function world(size: WorldSize): Promise<Buffer> {
  const dir = process.env.BENCH_WORLD_DIR;
  const path = dir ? join(dir, `${size.name}.paysandbox`) : undefined;
  if (path && existsSync(path)) return readFileSync(path);
  const file = await buildWorld(size);
  if (dir && path) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, file);
  }
  return file;
}

// ---------------------------------------------------------------------------------------------
// Calls

type Figures = Record<string, number>;

/** POST a snapshot file, timed to the last byte of the answer. */
const postFile = (agent: Agent, url: string, file: Buffer) => call(agent, "POST", url, file, { "content-type": SNAPSHOT });

/**
 * The snapshot `file` as another file of the same state: its description's `source` (a label for
 * people) numbered `n`, written by the format's own writer, so another checksum, which a server that
 * loaded `file` has not checked.
 */
function renamed(file: Buffer, n: number): Buffer {
  const snap = readSnapshot(file);
  return writeSnapshot({ ...snap, meta: { ...snap.meta, source: `${snap.meta.source}-${n}` } });
}

const idOf = (a: Answer) => (JSON.parse(a.body) as { id: string }).id;

/** `n` calls from CLIENTS clients at once, each on its own keep-alive connection; each call's ms, and the ids. */
async function storm(n: number, one: (agent: Agent, i: number) => Promise<Answer>): Promise<{ ms: number[]; ids: string[] }> {
  const answers = await fromClients(CLIENTS, n, one);
  return { ms: answers.map((a) => a.ms), ids: answers.map(idOf) };
}

/** Deletes them, CLIENTS at once (`?force=true`: nothing of theirs is waited for). */
async function deleteAll(url: string, ids: string[]): Promise<void> {
  await fromClients(CLIENTS, ids.length, async (agent, i) =>
    expect("delete", await call(agent, "DELETE", `${url}/_sandbox/sandboxes/${ids[i]}?force=true`), 204),
  );
}

/** The ids of the sandboxes whose database file the server holds open now (its fds). */
function openIds(pid: number): Set<string> {
  const ids = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /-sandboxes\/(sbx_[0-9A-Za-z]+)\.db$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) ids.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  return ids;
}

/**
 * `n` calls (`one`) from CLIENTS clients at once while `GET /_sandbox/health` and a card payment in
 * the bystander sandbox are each probed one at a time: the calls' ids, and as figures `<tag>P50`,
 * `<tag>P99`, `<tag>HealthP99`, `<tag>PayP99`, `<tag>WallMs` and `<tag>CpuMs` (server CPU a call).
 */
async function probedStorm(
  server: Running,
  at: { url: string; bystander: string; token: string },
  tag: string,
  n: number,
  one: (agent: Agent, i: number) => Promise<Answer>,
): Promise<{ ids: string[]; figures: Figures }> {
  const health = healthProbe(at.url);
  const pay = requestProbe(`${at.bystander}/api/v1/payments/card`, {
    headers: { authorization: at.token },
    bodyFor: (i) => paymentBody(`${tag}-${Date.now()}-${i}`),
  });
  const cpu0 = processCpuMs(server.pid) ?? 0;
  const t0 = performance.now();
  const { ms, ids } = await storm(n, one);
  const wall = performance.now() - t0;
  const cpu = (processCpuMs(server.pid) ?? 0) - cpu0;
  const [h, p] = await Promise.all([health.end(), pay.end()]);
  if (p.failed > 0) {
    wrong++;
    console.error(`${p.failed} card payments in the bystander failed (${tag})`);
  }
  return {
    ids,
    figures: {
      [`${tag}P50`]: r2(percentile(ms, 50)),
      [`${tag}P99`]: r2(percentile(ms, 99)),
      [`${tag}HealthP99`]: h.p99,
      [`${tag}PayP99`]: p.p99,
      [`${tag}WallMs`]: Math.round(wall),
      [`${tag}CpuMs`]: r2(cpu / n),
    },
  };
}

/** Both probes on an idle server for REST_MS: their p99s. */
async function atRest(url: string, bystander: string, token: string): Promise<Figures> {
  const health = healthProbe(url);
  const pay = requestProbe(`${bystander}/api/v1/payments/card`, {
    headers: { authorization: token },
    bodyFor: (i) => paymentBody(`rest-${Date.now()}-${i}`),
  });
  await delay(REST_MS);
  const [h, p] = await Promise.all([health.end(), pay.end()]);
  return { restHealthP99: h.p99, restPayP99: p.p99 };
}

// ---------------------------------------------------------------------------------------------
// A round

async function round(main: string | undefined, storage: "file" | "memory", small: Buffer, large: Buffer): Promise<Figures> {
  const load0 = loadavg()[0] ?? 0;
  const server: Running = await startSandbox({
    ...(main ? { main } : {}),
    ...(storage === "memory" ? { dbPath: ":memory:" } : {}),
    nodeArgs: NODE_ARGS,
  });
  const url = server.url;
  const f: Figures = {};
  try {
    if (!SUITE_ONLY) await storms(server, storage, f, small, large);
    // 6. the suite, each way (on its own: a warm-up suite first, each way's median of SUITE_REPEAT)
    if (SUITE_ONLY) await suite(url, "from", SUITE_PARALLEL);
    for (const way of LARGE_ONLY ? [] : SUITE_WAYS) {
      const runs: number[] = [];
      const cpus: number[] = [];
      for (let i = 0; i < SUITE_REPEAT; i++) {
        const cpu0 = processCpuMs(server.pid) ?? 0;
        runs.push(await suite(url, way, SUITE_PARALLEL));
        cpus.push(((processCpuMs(server.pid) ?? 0) - cpu0) / SUITE_FILES);
      }
      f[`suite_${way}`] = Math.round(median(runs));
      f[`suite_${way}_cpu`] = r2(median(cpus));
    }
    f.load = r2((load0 + (loadavg()[0] ?? 0)) / 2);
    return f;
  } catch (err) {
    const out = server.output();
    throw out.includes("[exited:") ? new Error(`${String(err)}; the server is gone:\n${out.slice(-1500)}`) : err;
  } finally {
    await server.stop();
  }
}

/** Parts 1 to 5 of a round (the header), their figures into `f`. */
async function storms(server: Running, storage: "file" | "memory", f: Figures, small: Buffer, large: Buffer): Promise<void> {
  const url = server.url;
  const sandboxes = `${url}/_sandbox/sandboxes`;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const smallId = idOf(expect("load the small world", await postFile(agent, `${sandboxes}?name=small&ttl=P1D`, small)));
    const largeId = idOf(expect("load the large world", await postFile(agent, `${sandboxes}?name=large&ttl=P1D`, large)));
    const bystanderId = idOf(expect("bystander", await call(agent, "POST", sandboxes, { name: "bystander", ttl: "P1D" })));
    const bystander = `${url}/sandboxes/${bystanderId}`;
    const token = await merchantToken(bystander);
    const fork = (a: Agent, from: string) => call(a, "POST", sandboxes, { from, ttl: "PT10M" });

    // warm-up: the server's JIT on each path
    const warm: string[] = [];
    for (let i = 0; i < 10; i++) warm.push(idOf(expect("create", await call(agent, "POST", sandboxes, { ttl: "PT10M" }))));
    for (let i = 0; i < 5; i++) warm.push(idOf(expect("fork", await fork(agent, smallId))));
    for (let i = 0; i < 20; i++)
      expect(
        "pay",
        await call(agent, "POST", `${bystander}/api/v1/payments/card`, paymentBody(`w-${i}`), { authorization: token }),
        200,
      );
    await deleteAll(url, warm);

    // 1.-4. (BENCH_ONLY=large skips them)
    if (!LARGE_ONLY) {
      // 1. at rest
      await delay(1_200);
      Object.assign(f, await atRest(url, bystander, token));
      const one: { create: number[]; fork: number[] } = { create: [], fork: [] };
      const singles: string[] = [];
      for (let i = 0; i < 10; i++) {
        const c = expect("create", await call(agent, "POST", sandboxes, { ttl: "PT10M" }));
        one.create.push(c.ms);
        const k = expect("fork", await fork(agent, smallId));
        one.fork.push(k.ms);
        singles.push(idOf(c), idOf(k));
      }
      await deleteAll(url, singles);
      f.restCreateP50 = r2(percentile(one.create, 50));
      f.restForkP50 = r2(percentile(one.fork, 50));

      // 2. the fork storm
      await delay(2_500);
      f.rssBefore = r2(rssMb(server.pid));
      const probed = (tag: string, n: number, one: (a: Agent, i: number) => Promise<Answer>) =>
        probedStorm(server, { url, bystander, token }, tag, n, one);
      const forks = await probed("fork", FORKS, async (a) => expect("fork", await fork(a, smallId)));
      Object.assign(f, forks.figures);
      f.rssForks = r2(rssMb(server.pid));

      // 3. memory: idle forks, then after their deletion
      if (IDLE) {
        const until = performance.now() + IDLE_WAIT_MS;
        while (performance.now() < until) await delay(500);
        if (storage === "file") {
          const open = openIds(server.pid);
          const still = forks.ids.filter((id) => open.has(id)).length;
          if (still > 0) console.log(`  (${still} forks still open after ${IDLE_WAIT_MS / 1000} s)`);
        }
        f.rssIdle = r2(rssMb(server.pid));
        f.idleForkMb = r2((f.rssIdle - f.rssBefore) / FORKS);
      }
      await deleteAll(url, forks.ids);
      await delay(2_500);
      f.rssAfter = r2(rssMb(server.pid));
      f.rssAfterDelta = r2(f.rssAfter - f.rssBefore);

      // 4. the create storm
      await delay(1_200);
      const creates = await probed("create", CREATES, async (a, i) =>
        expect("create", await call(a, "POST", sandboxes, { name: `c-${i}`, ttl: "PT10M" })),
      );
      Object.assign(f, creates.figures);
      // the reopen: the first request to each of 100 the server closed (beyond the 64 it keeps open,
      // least recently used first, at its next tick), and the second request right after
      await delay(2_500);
      const open = storage === "file" ? openIds(server.pid) : new Set<string>();
      const closed = creates.ids.filter((id) => !open.has(id)).slice(0, REOPENS);
      const reopen: { first: number[]; second: number[] } = { first: [], second: [] };
      for (const id of closed) {
        for (const into of [reopen.first, reopen.second]) {
          into.push(expect("reopen", await call(agent, "GET", `${url}/sandboxes/${id}/_sandbox/clock`), 200).ms);
        }
      }
      f.reopenP50 = r2(percentile(reopen.first, 50));
      f.secondP50 = r2(percentile(reopen.second, 50));
      await deleteAll(url, creates.ids);
    }

    // 5. one fork at a time of the large world, and loads of its file
    const forkMs: number[] = [];
    for (let i = 0; i < SINGLE + 3; i++) {
      const a = expect("fork (large)", await fork(agent, largeId));
      if (i >= 3) forkMs.push(a.ms);
      expect("delete", await call(agent, "DELETE", `${sandboxes}/${idOf(a)}?force=true`), 204);
    }
    f.largeForkP50 = r2(percentile(forkMs, 50));
    f.largeForkP99 = r2(percentile(forkMs, 99));
    // the file loaded at the start of the round (its database checked then), and files this server
    // never saw (the same world, each file's description renamed: another checksum, checked in full)
    for (const [figure, fileFor] of [
      ["largeLoadP50", () => large],
      ["largeLoadNewP50", (i: number) => renamed(large, i + 1)],
    ] as const) {
      const loadMs: number[] = [];
      for (let i = 0; i < LOADS + 2; i++) {
        const a = expect("load (large)", await postFile(agent, `${sandboxes}?ttl=PT10M`, fileFor(i)));
        if (i >= 2) loadMs.push(a.ms);
        expect("delete", await call(agent, "DELETE", `${sandboxes}/${idOf(a)}?force=true`), 204);
      }
      f[figure] = r2(percentile(loadMs, 50));
    }
  } finally {
    agent.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// The report

/** [label, figure, its at-rest baseline (a figure or a text), target (≤ bound, or a text), unit] */
const LINES: Array<[string, string, string, number | undefined, string]> = [
  ["100 forks of 2,000 payments, 16 clients: p50", "forkP50", "restForkP50", 100, "ms"],
  ["100 forks, 16 clients: fork p99", "forkP99", "restForkP50", 250, "ms"],
  ["  health p99 during them", "forkHealthP99", "restHealthP99", 50, "ms"],
  ["  card payment in another sandbox p99", "forkPayP99", "restPayP99", 50, "ms"],
  ["  the 100, wall", "forkWallMs", "", undefined, "ms"],
  ["  server CPU a fork", "forkCpuMs", "", undefined, "ms"],
  ["RSS before the 100 forks", "rssBefore", "", undefined, "MB"],
  ["RSS right after them", "rssForks", "rssBefore", undefined, "MB"],
  ["an idle fork (RSS once closed ÷ 100)", "idleForkMb", "", 1, "MB"],
  ["RSS after deleting them, above before", "rssAfterDelta", "", 50, "MB"],
  ["300 creates, 16 clients: create p50", "createP50", "restCreateP50", undefined, "ms"],
  ["300 creates, 16 clients: create p99", "createP99", "restCreateP50", 150, "ms"],
  ["  health p99 during them", "createHealthP99", "restHealthP99", 50, "ms"],
  ["  card payment in another sandbox p99", "createPayP99", "restPayP99", 50, "ms"],
  ["  server CPU a create", "createCpuMs", "", undefined, "ms"],
  ["first request to a closed sandbox: p50", "reopenP50", "secondP50", 20, "ms"],
  ["a fork of 10,000 payments, one at a time: p50", "largeForkP50", "", 20, "ms"],
  ["  p99", "largeForkP99", "", 60, "ms"],
  ["a load of its snapshot, a file new here: p50", "largeLoadNewP50", "", 50, "ms"],
  ["  the file loaded before (checked then): p50", "largeLoadP50", "", 50, "ms"],
  ["suite, 32 files 4 at once: each builds its world", "suite_build", "", undefined, "ms"],
  ["  each starts from the snapshot file", "suite_snapshot", "suite_build", undefined, "ms"],
  ["  each forks the world", "suite_from", "suite_build", 390, "ms"],
  ["  server CPU a file (its world's set-up included)", "suite_from_cpu", "", undefined, "ms"],
  ["load average over the rounds", "load", "", undefined, ""],
];

function report(storage: string, sides: Record<"A" | "B", Figures[]>): void {
  const med = (rounds: Figures[], key: string) => r2(median(rounds.map((r) => r[key] ?? Number.NaN)));
  const each = (rounds: Figures[], key: string) => rounds.map((r) => r[key]).join("/");
  const rows: Row[] = [];
  for (const [label, key, restKey, bound, unit] of LINES) {
    const a = med(sides.A, key);
    if (!Number.isFinite(a)) continue;
    const row: Row = { figure: label, unit, A: a, "A rounds": each(sides.A, key) };
    if (sides.B.length > 0) {
      row.B = med(sides.B, key);
      row["B rounds"] = each(sides.B, key);
    }
    const rest = restKey ? med(sides.A, restKey) : Number.NaN;
    row["at rest"] = Number.isFinite(rest) ? rest : "";
    row.target = bound === undefined ? "" : `≤ ${bound}`;
    row.met = bound === undefined ? "" : a <= bound ? "yes" : "MISSED";
    rows.push(row);
    const suffix = storage === "file" ? "" : `-${storage}`;
    emit(`storm-${key}${suffix}`, {
      value: a,
      ...(Number.isFinite(rest) ? { atRest: rest } : {}),
      ...(bound === undefined ? {} : { target: `<=${bound}`, pass: a <= bound }),
      ...(sides.B.length > 0 ? { b: med(sides.B, key) } : {}),
    });
  }
  console.log(
    `\n=== sandboxes at once, ${storage} storage: medians of ${sides.A.length} round(s) (A: this build${sides.B.length > 0 ? "; B: BENCH_COMPARE" : ""}) ===`,
  );
  printTable(rows);
}

const small = SUITE_ONLY ? Buffer.alloc(0) : await world(SMALL);
const large = SUITE_ONLY ? Buffer.alloc(0) : await world(LARGE);
for (const [size, file] of SUITE_ONLY
  ? []
  : ([
      [SMALL, small],
      [LARGE, large],
    ] as const)) {
  emit(`storm-world-${size.name}`, { payments: size.payments, bytes: file.length, mb: r2(file.length / 1024 / 1024) });
}
for (const storage of STORAGES) {
  const sides: Record<"A" | "B", Figures[]> = { A: [], B: [] };
  for (let i = 0; i < ROUNDS; i++) {
    const order: Array<"A" | "B"> = MAIN_B ? (i % 2 === 0 ? ["A", "B"] : ["B", "A"]) : ["A"];
    for (const side of order) {
      const f = await round(side === "A" ? MAIN_A : MAIN_B, storage, small, large);
      console.log(`${storage} round ${i + 1} ${side}: ${JSON.stringify(f)}`);
      sides[side].push(f);
    }
  }
  report(storage, sides);
}
if (wrong > 0) {
  console.error(`${wrong} wrong answer(s): the figures above are not valid`);
  process.exitCode = 1;
}
